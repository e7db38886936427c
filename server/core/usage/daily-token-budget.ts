import { LiveTokenCount } from './live-token-count.js';
import { budgetSpentError, RunTokenBudget } from './run-token-budget.js';
import { utcDay } from './usage-day.js';
import type { UsageRepository } from './usage-repository.js';

export interface DailyTokenBudgetOptions {
  repository: Pick<UsageRepository, 'dayTotal'>;
  /** The operator's limit for every account (`HARNESS_LIMIT_TOKENS_PER_DAY`); undefined: none. */
  defaultTokensPerDay?: number;
  /** The account's own limit set by the operator, read from storage each time so every replica sees a change at once. */
  accountTokensPerDay: (accountId: string) => Promise<number | undefined>;
  /** The tokens this process's model calls used and has not recorded yet (default: a count of its own). */
  live?: LiveTokenCount;
  now: () => Date;
}

/** How a run opens its budget. */
export interface OpenBudgetOptions {
  /** The account's row as the request read it moments ago, which stands for a read of its own. */
  readByRequest?: { tokensPerDay?: number };
  /** Throw `RateLimitedError` when the budget is spent already (a new turn, an approval answer); false: the run ends itself (a continuation). */
  refuseWhenSpent: boolean;
}

/**
 * The daily token budget: once an account's tokens of the current UTC day reach its limit, no
 * further model call starts. A new turn or an approval answer is refused (429, `Retry-After`
 * until UTC midnight); a running turn checks before each model call and stops cleanly.
 */
export class DailyTokenBudget {
  private readonly live: LiveTokenCount;

  constructor(private readonly options: DailyTokenBudgetOptions) {
    this.live = options.live ?? new LiveTokenCount();
  }

  /**
   * The limit that applies to the account, undefined when none does. `readByRequest`: the
   * account's row as the request read it moments ago, which stands for a read of its own.
   */
  async limitOf(accountId: string, readByRequest?: { tokensPerDay?: number }): Promise<number | undefined> {
    const own = readByRequest ? readByRequest.tokensPerDay : await this.options.accountTokensPerDay(accountId);
    return own ?? this.options.defaultTokensPerDay;
  }

  /**
   * A run's budget: the limit and the day's tokens, read once (the counters, plus what this
   * process used and has not written yet). No limit: no read of the counters at all.
   */
  async open(accountId: string, options: OpenBudgetOptions): Promise<RunTokenBudget> {
    const { live } = this;
    const { now } = this.options;
    const limit = await this.limitOf(accountId, options.readByRequest);
    if (limit === undefined) return new RunTokenBudget(live, { accountId, spentAtStart: 0, now });
    const spentAtStart = (await this.options.repository.dayTotal(accountId, utcDay(now()))) + live.unrecorded(accountId);
    if (options.refuseWhenSpent && spentAtStart >= limit) throw budgetSpentError(spentAtStart, limit, now());
    return new RunTokenBudget(live, { accountId, limit, spentAtStart, now });
  }

  /** Throws `RateLimitedError` when the account has spent its tokens for today. */
  async check(accountId: string, readByRequest?: { tokensPerDay?: number }): Promise<void> {
    await this.open(accountId, { refuseWhenSpent: true, ...(readByRequest ? { readByRequest } : {}) });
  }
}
