import { RateLimitedError } from '../errors.js';
import type { RateBudget } from './rate-budget.js';

/**
 * Takes one token of `key`'s budget, or throws `RateLimitedError` (429 with Retry-After on
 * HTTP, a `rate_limited` finish on NATS). `what` names the budget in the message ("turns",
 * "completion calls"); `whose` the owner ("this account").
 */
export async function takeBudget(budget: RateBudget, key: string, what: string, whose = 'this account'): Promise<void> {
  const outcome = await budget.take(key);
  if (!outcome.allowed) {
    throw new RateLimitedError(`Too many ${what} for ${whose}; retry in ${outcome.retryAfterSeconds} s.`, outcome.retryAfterSeconds);
  }
}
