import { describe, expect, it } from 'vitest';
import { SignupPolicy, signupClientKey, signupSettingsFromEnvironment } from './signup-policy.js';

describe('signupSettingsFromEnvironment', () => {
  it('defaults to open sign-up, 10 a minute per client, and refuses bad values naming the variable', () => {
    expect(signupSettingsFromEnvironment({})).toEqual({ mode: 'open', perMinutePerClient: 10 });
    expect(signupSettingsFromEnvironment({ HARNESS_SIGNUP: 'admin', HARNESS_LIMIT_SIGNUPS_PER_MINUTE: '2' })).toEqual({ mode: 'admin', perMinutePerClient: 2 });
    expect(() => signupSettingsFromEnvironment({ HARNESS_SIGNUP: 'closed' })).toThrow('HARNESS_SIGNUP must be "open" or "admin"');
    expect(() => signupSettingsFromEnvironment({ HARNESS_LIMIT_SIGNUPS_PER_MINUTE: '0' })).toThrow('HARNESS_LIMIT_SIGNUPS_PER_MINUTE must be a positive integer');
  });
});

describe('signupClientKey', () => {
  it('keys IPv4 by address, IPv6 by /64, and IPv4-mapped IPv6 as IPv4', () => {
    expect(signupClientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(signupClientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(signupClientKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(signupClientKey('2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(signupClientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(signupClientKey('::1')).toBe('0:0:0:0::/64');
  });
});

describe('SignupPolicy', () => {
  it('refuses non-admins when closed, counts each client in open mode, never the admin', async () => {
    const closed = new SignupPolicy({ mode: 'admin', perMinutePerClient: 10 });
    await expect(closed.check({ address: '203.0.113.1', isAdmin: false })).rejects.toThrow(expect.objectContaining({ code: 'forbidden' }));
    await expect(closed.check({ address: '203.0.113.1', isAdmin: true })).resolves.toBeUndefined();
    const open = new SignupPolicy({ mode: 'open', perMinutePerClient: 1 }, () => 0);
    await open.check({ address: '203.0.113.1', isAdmin: false });
    await expect(open.check({ address: '203.0.113.1', isAdmin: false })).rejects.toThrow(expect.objectContaining({ code: 'rate_limited' }));
    for (let index = 0; index < 5; index += 1) await open.check({ address: '203.0.113.1', isAdmin: true });
    await open.check({ address: '203.0.113.2', isAdmin: false });
  });
});
