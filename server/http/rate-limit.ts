import type { FastifyRequest } from 'fastify';
import type { RateLimiter } from '../core/limits/rate-limiter.js';
import { takeBudget } from '../core/limits/take-budget.js';
import { currentAccount } from './authentication.js';

/**
 * A preHandler that takes one token from the account's budget in `limiter`; an empty budget is
 * a 429 `rate_limited` with `Retry-After`. Runs after authentication, before the body is used.
 */
export function accountRateLimit(limiter: RateLimiter, what: string) {
  return async (request: FastifyRequest): Promise<void> => {
    takeBudget(limiter, currentAccount(request).accountId, what);
  };
}
