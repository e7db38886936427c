import type { AccountUsage } from '../usage/account-usage.js';
import type { RunTokenBudget } from '../usage/run-token-budget.js';
import { addUsage, hasTokens, sumUsage, type TokenUsage } from '../usage/token-usage.js';

/**
 * A run's token usage on its way to the daily counters: each pass's model calls are counted
 * with the pass's conversation write (started in the same tick, so on lowdb both share one
 * group commit), the turn itself with the first; what a run ends with unwritten (a cancel, a
 * failure) is counted at its end. The run's budget follows each call from the moment it ends,
 * before it is written.
 */
export class RunUsageRecorder {
  private unrecorded: TokenUsage = sumUsage([]);
  /** The same calls per provider and model (those that name theirs). */
  private unrecordedByModel = new Map<string, TokenUsage>();
  private turnCounted: boolean;

  constructor(
    private readonly usage: Pick<AccountUsage, 'record'> | undefined,
    private readonly run: { accountId: string; agentId: string; startsTurn: boolean; budget?: RunTokenBudget },
  ) {
    this.turnCounted = !run.startsTurn;
  }

  /** A model call ended (its step finished, or it was cut short and estimated): the budget counts it at once. */
  callEnded(call: TokenUsage): void {
    this.run.budget?.callEnded(call.totalTokens);
  }

  /** Model calls whose count is to be written with the next flush. */
  add(calls: readonly TokenUsage[]): void {
    this.unrecorded = addUsage(this.unrecorded, sumUsage(calls));
    for (const call of calls) {
      if (call.provider === undefined || call.model === undefined) continue;
      const key = JSON.stringify([call.provider, call.model]);
      const before = this.unrecordedByModel.get(key);
      this.unrecordedByModel.set(key, before ? addUsage(before, call) : call);
    }
  }

  /** Counts what was not counted yet; its write starts before this returns. */
  flush(): Promise<void> {
    const startsTurn = !this.turnCounted;
    const usage = this.unrecorded;
    if (this.usage === undefined || (!startsTurn && !hasTokens(usage))) return Promise.resolve();
    this.turnCounted = true;
    this.unrecorded = sumUsage([]);
    const byModel = [...this.unrecordedByModel.values()];
    this.unrecordedByModel = new Map();
    const budget = this.run.budget;
    const recorded = this.usage.record({ accountId: this.run.accountId, agentId: this.run.agentId, usage, startsTurn, ...(byModel.length > 0 ? { byModel } : {}) });
    return budget ? recorded.then(() => budget.recorded(usage.totalTokens)) : recorded;
  }

  /** The run ended: what it counted and did not write no longer weighs on its account's budget checks. */
  close(): void {
    this.run.budget?.close();
  }
}
