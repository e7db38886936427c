import { RateLimitedError } from '../errors.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * Takes one token of `key`'s budget in `limiter`, or throws `RateLimitedError` (429 with
 * Retry-After on HTTP, a `rate_limited` finish on NATS). `what` names the budget in the
 * message ("turns", "completion calls"); `whose` the owner ("this account").
 */
export function takeBudget(limiter: RateLimiter, key: string, what: string, whose = 'this account'): void {
  const outcome = limiter.take(key);
  if (!outcome.allowed) {
    throw new RateLimitedError(`Too many ${what} for ${whose}; retry in ${outcome.retryAfterSeconds} s.`, outcome.retryAfterSeconds);
  }
}
