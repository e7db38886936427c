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

describe('RateLimiter memory', () => {
  it('holds at most maxKeys keys under a flood of fresh keys, and keeps the recently used ones', () => {
    const limiter = new RateLimiter(10, () => 0, 1000);
    limiter.take('regular');
    for (let index = 0; index < 50_000; index += 1) {
      limiter.take(`flood-${index}`);
      if (index % 100 === 0) limiter.take('regular');
      expect(limiter.size).toBeLessThanOrEqual(1000);
    }
    // The key in use kept its bucket: 500 + 1 takes of a budget of 10 left it empty.
    expect(limiter.take('regular').allowed).toBe(false);
  });
});

describe('limitsFromEnvironment', () => {
  it('reads HARNESS_LIMIT_* over the defaults and refuses bad values', () => {
    expect(limitsFromEnvironment({ HARNESS_LIMIT_TURNS_PER_MINUTE: '5' }).turnRequestsPerMinute).toBe(5);
    expect(() => limitsFromEnvironment({ HARNESS_LIMIT_MESSAGE_CHARACTERS: 'lots' })).toThrow('HARNESS_LIMIT_MESSAGE_CHARACTERS must be a positive integer');
  });
});
