import { RateLimitedError } from '../errors.js';
import type { LiveTokenCount } from './live-token-count.js';
import { nextUtcMidnight, secondsUntilNextUtcDay } from './usage-day.js';

/** The account's daily limit as a run opened it, and what the day had spent by then. */
export interface RunBudgetStart {
  accountId: string;
  /** Undefined: no limit applies, so the run is never stopped (its calls are still followed). */
  limit?: number;
  /** The day's tokens when the run started: the counters read then, plus what this process had not recorded yet. */
  spentAtStart: number;
  /** The clock, for the refusal's reset time and `Retry-After`. */
  now: () => Date;
}

/** The refusal once an account's tokens of today reach its limit: 429, `Retry-After` until the next UTC midnight. */
export function budgetSpentError(spent: number, limit: number, now: Date): RateLimitedError {
  return new RateLimitedError(
    `This account's daily token budget is spent: ${spent} of ${limit} tokens used today (UTC). New turns and model calls are refused until it resets at ${nextUtcMidnight(now)}.`,
    secondsUntilNextUtcDay(now),
  );
}

/**
 * One run's view of its account's daily token budget. The day's tokens are read once, when
 * the run starts; after that every model call this process sees end for the account (this
 * run's, a subagent's, another turn's) is added in memory, so the check before each model
 * call costs no storage read and the budget holds within one model call.
 */
export class RunTokenBudget {
  private readonly mark: number;
  private usedByRun = 0;
  private recordedByRun = 0;

  constructor(
    private readonly live: LiveTokenCount,
    private readonly start: RunBudgetStart,
  ) {
    this.mark = live.usedSoFar(start.accountId);
  }

  /** The day's tokens now, as far as this process knows. */
  spent(): number {
    return this.start.spentAtStart + this.live.usedSince(this.start.accountId, this.mark);
  }

  /** A limit applies: the run is stopped once the day's tokens reach it. */
  get limited(): boolean {
    return this.start.limit !== undefined;
  }

  /**
   * The tokens the account may still use today, as far as this process knows (a map read, no
   * storage read): what a model call in progress may use before it is stopped. Infinite when no
   * limit applies; zero or less once spent.
   */
  remaining(): number {
    return this.start.limit === undefined ? Number.POSITIVE_INFINITY : this.start.limit - this.spent();
  }

  /** True once the day's tokens reach the limit: no further model call may start. */
  exhausted(): boolean {
    return this.start.limit !== undefined && this.spent() >= this.start.limit;
  }

  /** What a stopped run or a refused answer says (429, `Retry-After` until UTC midnight). */
  exhaustedError(): RateLimitedError {
    return budgetSpentError(this.spent(), this.start.limit ?? 0, this.start.now());
  }

  /** A model call of this run ended, with `tokens` (reported or estimated). */
  callEnded(tokens: number): void {
    this.usedByRun += tokens;
    this.live.addUsed(this.start.accountId, tokens);
  }

  /** `tokens` of this run's calls are now in the usage counters. */
  recorded(tokens: number): void {
    const counted = Math.min(tokens, this.usedByRun - this.recordedByRun);
    this.recordedByRun += counted;
    this.live.addRecorded(this.start.accountId, counted);
  }

  /** The run ended: what it used and did not record (a failure before its write) stops counting as pending. */
  close(): void {
    this.recorded(this.usedByRun - this.recordedByRun);
  }
}
