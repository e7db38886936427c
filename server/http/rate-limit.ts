import type { FastifyRequest } from 'fastify';
import type { RateBudget } from '../core/limits/rate-budget.js';
import { takeBudget } from '../core/limits/take-budget.js';
import { currentAccount } from './authentication.js';

/**
 * A preHandler that takes one token from the account's `budget`; an empty budget is a 429
 * `rate_limited` with `Retry-After`. Runs after authentication, before the body is used.
 */
export function accountRateLimit(budget: RateBudget, what: string) {
  return async (request: FastifyRequest): Promise<void> => {
    await takeBudget(budget, currentAccount(request).accountId, what);
  };
}
