import { describe, expect, it } from 'vitest';
import { limitsFromEnvironment } from './service-limits.js';
import { RateLimiter } from './rate-limiter.js';

describe('RateLimiter', () => {
  it('allows the budget, refuses with a retry time, and refills over the minute', () => {
    let now = 0;
    const limiter = new RateLimiter(3, () => now);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')].every((result) => result.allowed)).toBe(true);
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 20 });
    expect(limiter.take('b').allowed).toBe(true);
    now = 20_000;
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
  });
});

describe('limitsFromEnvironment', () => {
  it('reads HARNESS_LIMIT_* over the defaults and refuses bad values', () => {
    expect(limitsFromEnvironment({ HARNESS_LIMIT_TURNS_PER_MINUTE: '5' }).turnRequestsPerMinute).toBe(5);
    expect(() => limitsFromEnvironment({ HARNESS_LIMIT_MESSAGE_CHARACTERS: 'lots' })).toThrow('HARNESS_LIMIT_MESSAGE_CHARACTERS must be a positive integer');
  });
});
