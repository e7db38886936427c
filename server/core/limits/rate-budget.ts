import { RateLimiter } from './rate-limiter.js';

/** What taking one token gives: allowed, or refused with the seconds until a token is back. */
export type RateOutcome = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * A per-key budget of takes per minute (a token bucket refilled continuously). In one
 * process it is a `RateLimiter` in memory; across replicas one row per key in the shared
 * database, so every replica spends the same budget.
 */
export interface RateBudget {
  /** Take one token of `key`'s budget. */
  take(key: string): Promise<RateOutcome>;
}

/** One process's budget: today's in-memory `RateLimiter` (bounded to `maxKeys` keys). */
export function memoryRateBudget(perMinute: number, now?: () => number, maxKeys?: number): RateBudget {
  const limiter = new RateLimiter(perMinute, now, maxKeys);
  return { take: async (key) => limiter.take(key) };
}

/** Seconds until a bucket holding `tokens` (fewer than 1) has one again, at `perMinute` a minute; at least 1. */
export function retryAfterSeconds(tokens: number, perMinute: number): number {
  return Math.max(1, Math.ceil(((1 - tokens) * 60) / perMinute));
}
