import { describe, expect, it } from 'vitest';
import { memoryRateBudget, retryAfterSeconds } from './rate-budget.js';

describe('memoryRateBudget', () => {
  it('is the in-memory token bucket behind an async take', async () => {
    let now = 0;
    const budget = memoryRateBudget(2, () => now);
    expect([await budget.take('a'), await budget.take('a')]).toEqual([{ allowed: true }, { allowed: true }]);
    expect(await budget.take('a')).toEqual({ allowed: false, retryAfterSeconds: 30 });
    now = 30_000;
    expect(await budget.take('a')).toEqual({ allowed: true });
  });
});

describe('retryAfterSeconds', () => {
  it('is the time to one whole token at the budget rate, at least a second', () => {
    expect(retryAfterSeconds(0, 60)).toBe(1);
    expect(retryAfterSeconds(0, 6)).toBe(10);
    expect(retryAfterSeconds(0.5, 6)).toBe(5);
    expect(retryAfterSeconds(0.99, 6000)).toBe(1);
  });
});
