import { RateLimitedError } from '../errors.js';
import { nextUtcMidnight, secondsUntilNextUtcDay, utcDay } from './usage-day.js';
import type { UsageRepository } from './usage-repository.js';

export interface DailyTokenBudgetOptions {
  repository: Pick<UsageRepository, 'dayTotal'>;
  /** The operator's limit for every account (`HARNESS_LIMIT_TOKENS_PER_DAY`); undefined: none. */
  defaultTokensPerDay?: number;
  /** The account's own limit set by the operator, read from storage each time so every replica sees a change at once. */
  accountTokensPerDay: (accountId: string) => Promise<number | undefined>;
  now: () => Date;
}

/**
 * The daily token budget: once an account's tokens of the current UTC day reach its limit,
 * new turns are refused (429, `Retry-After` until UTC midnight). A turn already running is
 * never stopped, so a day can end somewhat past the limit.
 */
export class DailyTokenBudget {
  constructor(private readonly options: DailyTokenBudgetOptions) {}

  /**
   * The limit that applies to the account, undefined when none does. `readByRequest`: the
   * account's row as the request read it moments ago, which stands for a read of its own.
   */
  async limitOf(accountId: string, readByRequest?: { tokensPerDay?: number }): Promise<number | undefined> {
    const own = readByRequest ? readByRequest.tokensPerDay : await this.options.accountTokensPerDay(accountId);
    return own ?? this.options.defaultTokensPerDay;
  }

  /** Throws `RateLimitedError` when the account has spent its tokens for today. */
  async check(accountId: string, readByRequest?: { tokensPerDay?: number }): Promise<void> {
    const limit = await this.limitOf(accountId, readByRequest);
    if (limit === undefined) return;
    const now = this.options.now();
    const spent = await this.options.repository.dayTotal(accountId, utcDay(now));
    if (spent < limit) return;
    throw new RateLimitedError(
      `This account's daily token budget is spent: ${spent} of ${limit} tokens used today (UTC). New turns are refused until it resets at ${nextUtcMidnight(now)}.`,
      secondsUntilNextUtcDay(now),
    );
  }
}
