import type { FastifyRequest } from 'fastify';
import { RateLimitedError } from '../core/errors.js';
import type { RateLimiter } from '../core/limits/rate-limiter.js';
import { currentAccount } from './authentication.js';

/**
 * A preHandler that takes one token from the account's budget in `limiter`; an empty budget is
 * a 429 `rate_limited` with `Retry-After`. Runs after authentication, before the body is used.
 */
export function accountRateLimit(limiter: RateLimiter, what: string) {
  return async (request: FastifyRequest): Promise<void> => {
    const outcome = limiter.take(currentAccount(request).accountId);
    if (!outcome.allowed) {
      throw new RateLimitedError(`Too many ${what} for this account; retry in ${outcome.retryAfterSeconds} s.`, outcome.retryAfterSeconds);
    }
  };
}
