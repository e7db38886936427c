import type { DispatchGroup } from './async-tool-result.js';
import type { AsyncOutcome, AsyncSettlement, SettlementResult } from './async-settlement.js';
import { mayClaimContinuation } from './continuation-claim.js';
import { traceCompletion } from './async-tool-spans.js';

/** The completion endpoint's answer. */
export interface CompletionAnswer {
  resultId: string;
  status: 'completed' | 'failed';
  continuation: 'accepted' | 'waiting_for_async_tools';
  /** External calls of the group still processing, when the continuation waits. */
  pendingCount?: number;
}

/** Where a claimed continuation goes to be run (runs/continuation-dispatcher.ts: the background worker's queue). */
export interface ContinuationDispatch {
  dispatch(group: DispatchGroup): void;
}

/**
 * The operations that can claim a group's continuation (a completion, an in-process
 * settlement, a seal, recovery), and the one place that hands a claim to the dispatcher:
 * whatever claimed it, a continuation is dispatched here and nowhere else.
 */
export class AsyncToolCompletions {
  constructor(
    private readonly settlement: AsyncSettlement,
    private readonly dispatcher: ContinuationDispatch,
  ) {}

  /** `POST /async-tools/{resultId}/complete`: settle an external-dispatch row of the account's. */
  complete(accountId: string, resultId: string, outcome: AsyncOutcome): Promise<CompletionAnswer> {
    return traceCompletion(accountId, resultId, outcome, () => this.completeUntraced(accountId, resultId, outcome));
  }

  private async completeUntraced(accountId: string, resultId: string, outcome: AsyncOutcome): Promise<CompletionAnswer> {
    const settled = this.dispatchClaim(await this.settlement.settle(resultId, outcome, 'endpoint', accountId));
    return {
      resultId: settled.resultId,
      status: settled.status,
      continuation: settled.claimed ? 'accepted' : 'waiting_for_async_tools',
      ...(settled.claimed ? {} : { pendingCount: settled.pendingCount }),
    };
  }

  /** Settle a row from inside the service (same-invocation work, a failed dispatch, recovery). */
  async settleInProcess(resultId: string, outcome: AsyncOutcome): Promise<SettlementResult> {
    return this.dispatchClaim(await this.settlement.settle(resultId, outcome, 'in-process'));
  }

  /** Close a cancelled turn's group: its processing calls end failed and no continuation runs. */
  cancelGroup(groupId: string, reason: string): Promise<{ closed: string[]; eventId?: string }> {
    return this.settlement.cancelGroup(groupId, reason);
  }

  /**
   * Seal a pass's group once it registered every call. When its calls have all settled the
   * seal claims the continuation, which is queued now and runs once the turn that sealed it
   * has released the conversation (it takes the same conversation's lock).
   */
  async seal(groupId: string): Promise<{ claimed: boolean }> {
    const sealed = await this.settlement.seal(groupId);
    if (sealed.claimed) this.dispatcher.dispatch(sealed.group);
    return { claimed: sealed.claimed };
  }

  /** At boot: hand over a continuation claimed but not finished, or claim a sealed, settled group. True when one was dispatched. */
  async resume(group: DispatchGroup): Promise<boolean> {
    if (group.continuation?.state === 'claimed') {
      this.dispatcher.dispatch(group);
      return true;
    }
    // Only a group the claim rule could let through once its calls are settled is worth a transition.
    if (!mayClaimContinuation(group, 0)) return false;
    const claimed = await this.settlement.claimIfReady(group.groupId);
    if (claimed) this.dispatcher.dispatch(claimed);
    return claimed !== undefined;
  }

  private dispatchClaim(settled: SettlementResult): SettlementResult {
    if (settled.claimed && settled.group) this.dispatcher.dispatch(settled.group);
    return settled;
  }
}
