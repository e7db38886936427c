import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { isLoopbackHost, normalizeHost, pointsAtSelf } from './self-address.js';

describe('normalizeHost', () => {
  it('drops brackets, case and a trailing dot, and writes IPv4-mapped IPv6 as IPv4', () => {
    expect(normalizeHost('[::1]')).toBe('::1');
    expect(normalizeHost('LocalHost.')).toBe('localhost');
    expect(normalizeHost(new URL('http://[::ffff:127.0.0.1]/').hostname)).toBe('127.0.0.1');
    expect(normalizeHost('::ffff:10.0.0.1')).toBe('10.0.0.1');
  });
});

describe('isLoopbackHost', () => {
  it.each(['localhost', 'api.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '0.0.0.0'])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });
  it.each(['example.com', '10.0.0.1', '[2001:db8::1]'])('%s is not', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('pointsAtSelf', () => {
  const loopback = { host: '127.0.0.1', port: 4300 };

  it('matches the loopback names on the same port', () => {
    for (const url of ['http://127.0.0.1:4300/x', 'http://localhost:4300/x', 'http://[::1]:4300/x', 'https://localhost:4300/x', 'http://127.1:4300/x']) {
      expect(pointsAtSelf(url, loopback), url).toBe(true);
    }
  });

  it('does not match another port or another machine', () => {
    expect(pointsAtSelf('http://127.0.0.1:4200/x', loopback)).toBe(false);
    expect(pointsAtSelf('http://127.0.0.1/x', loopback)).toBe(false);
    expect(pointsAtSelf('http://example.com:4300/x', loopback)).toBe(false);
  });

  it('uses the default port of the scheme', () => {
    expect(pointsAtSelf('http://localhost/x', { host: '127.0.0.1', port: 80 })).toBe(true);
    expect(pointsAtSelf('https://localhost/x', { host: '127.0.0.1', port: 80 })).toBe(false);
  });

  it('matches the machine name when listening on every interface, and not a loopback name when listening on one outside address', () => {
    expect(pointsAtSelf(`http://${hostname()}:4300/x`, { host: '0.0.0.0', port: 4300 })).toBe(true);
    expect(pointsAtSelf('http://localhost:4300/x', { host: '::', port: 4300 })).toBe(true);
    expect(pointsAtSelf('http://localhost:4300/x', { host: '10.1.2.3', port: 4300 })).toBe(false);
    expect(pointsAtSelf('http://10.1.2.3:4300/x', { host: '10.1.2.3', port: 4300 })).toBe(true);
  });
});
