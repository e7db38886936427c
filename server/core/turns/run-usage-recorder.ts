import type { AccountUsage } from '../usage/account-usage.js';
import { addUsage, hasTokens, sumUsage, type TokenUsage } from '../usage/token-usage.js';

/**
 * A run's token usage on its way to the daily counters: each pass's model calls are counted
 * with the pass's conversation write (started in the same tick, so on lowdb both share one
 * group commit), the turn itself with the first; what a run ends with unwritten (a cancel, a
 * failure) is counted at its end.
 */
export class RunUsageRecorder {
  private unrecorded: TokenUsage = sumUsage([]);
  private turnCounted: boolean;

  constructor(
    private readonly usage: Pick<AccountUsage, 'record'> | undefined,
    private readonly run: { accountId: string; agentId: string; startsTurn: boolean },
  ) {
    this.turnCounted = !run.startsTurn;
  }

  /** Model calls that finished. */
  add(calls: readonly TokenUsage[]): void {
    this.unrecorded = addUsage(this.unrecorded, sumUsage(calls));
  }

  /** Counts what was not counted yet; its write starts before this returns. */
  flush(): Promise<void> {
    const startsTurn = !this.turnCounted;
    const usage = this.unrecorded;
    if (this.usage === undefined || (!startsTurn && !hasTokens(usage))) return Promise.resolve();
    this.turnCounted = true;
    this.unrecorded = sumUsage([]);
    return this.usage.record({ accountId: this.run.accountId, agentId: this.run.agentId, usage, startsTurn });
  }
}
