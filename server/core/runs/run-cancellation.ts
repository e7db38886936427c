import type { ToolResultPart } from 'ai';
import { isFinalStatus, type AsyncRequestRecord } from './status-row.js';
import { cancelledReason, type AsyncRequestTransitions } from './status-row-transitions.js';
import type { AsyncRequestsRepository } from './status-rows-repository.js';
import type { AsyncSettlement } from '../async-tools/async-settlement.js';
import { groupIdOfResult } from '../async-tools/async-tool-result.js';
import type { Agents } from '../agents/agents.js';
import { type ConversationState, lastMessage } from '../conversations/conversation.js';
import type { ConversationsRepository } from '../conversations/conversations-repository.js';
import type { CancelTarget, RunningTurn, RunningTurns } from '../coordination/running-turns.js';
import { ConflictError, NotFoundError } from '../errors.js';
import type { Logger } from '../logger.js';
import { denyOpenApprovals } from '../turns/approvals.js';
import { type ConversationLocks, conversationLockKey } from '../coordination/conversation-locks.js';
import { saveConversation } from '../turns/save-conversation.js';

/** The answer to a cancel request (202). */
export interface CancelAnswer {
  cancelled: true;
  conversationKey: string;
  /** The status row of the run. */
  eventId?: string;
  /** Set when a running turn was asked to stop; it ends with a `finish` whose status is `cancelled`. */
  turnId?: string;
  /** `running`: a turn was running and stops; `waiting`: the run waited for approvals or async tools, now closed; `queued`: it had not started. */
  state: 'running' | 'waiting' | 'queued';
  /** Approvals closed (denied as cancelled). */
  closedApprovals: string[];
  /** Async tool calls closed (`failed`; completing them is a 409). */
  closedAsyncTools: string[];
}

export interface RunCancellationOptions {
  runningTurns: RunningTurns;
  requests: AsyncRequestsRepository;
  transitions: Pick<AsyncRequestTransitions, 'cancel' | 'cancelQueued'>;
  conversations: ConversationsRepository;
  settlement: Pick<AsyncSettlement, 'cancelGroup'>;
  agents: Pick<Agents, 'load'>;
  locks: ConversationLocks;
  logger: Logger;
  now: () => Date;
}

/** How long a cancel waits for a turn that is about to run (claimed a moment ago, or starting) to register: about a second. */
const startingTurnAttempts = 10;
const startingTurnWaitMs = 100;

const approvalReason = 'The run was cancelled before this approval was answered.';

const pause = (milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

/** The async calls the turn that wrote the conversation's last message left processing (the `{resultId, status: "processing"}` results). */
function processingCallsOfLastTurn(state: ConversationState): string[] {
  const lastTurn = lastMessage(state.messages)?.turnId;
  const resultIds: string[] = [];
  for (const stored of state.messages) {
    if (stored.turnId !== lastTurn || stored.message.role !== 'tool') continue;
    for (const part of stored.message.content) {
      if (part.type !== 'tool-result') continue;
      const output = (part as ToolResultPart).output;
      const value = output.type === 'json' ? (output.value as { resultId?: unknown; status?: unknown } | null) : null;
      if (typeof value?.resultId === 'string' && value.status === 'processing') resultIds.push(value.resultId);
    }
  }
  return resultIds;
}

/**
 * Cancel requests: a running turn, wherever it runs, is asked to stop (it stores what it
 * streamed and ends `cancelled`); a run that waits for approvals or external async tools is
 * closed here (approvals denied, processing calls failed, no continuation); a queued
 * request never starts. Nothing to cancel is a 409.
 */
export class RunCancellation {
  constructor(private readonly options: RunCancellationOptions) {}

  /** `POST /status/{eventId}/cancel`. Another account's event is a 404. */
  async cancelEvent(accountId: string, eventId: string): Promise<CancelAnswer> {
    const target: CancelTarget = { accountId, eventId };
    const running = await this.options.runningTurns.requestCancel(target);
    if (running) return this.runningAnswer(running.conversationKey, running.eventId, running.turnId);
    let row = await this.options.requests.get(eventId);
    if (!row || row.accountId !== accountId) throw new NotFoundError(`No event ${eventId}.`);
    if (row.status === 'queued') {
      // Only while still queued: a worker may claim it between the read and this write, and
      // its turn must then be stopped as a running turn, not left to run under a cancelled row.
      if (await this.options.transitions.cancelQueued(eventId)) {
        return { cancelled: true, conversationKey: row.conversationKey, eventId, state: 'queued', closedApprovals: [], closedAsyncTools: [] };
      }
      row = await this.options.requests.get(eventId);
    }
    // Claimed by a worker a moment ago: its turn registers as it starts.
    for (let attempt = 0; row?.status === 'processing' && attempt < startingTurnAttempts; attempt += 1) {
      await pause(startingTurnWaitMs);
      const found = await this.options.runningTurns.requestCancel(target);
      if (found) return this.runningAnswer(found.conversationKey, found.eventId, found.turnId);
      row = await this.options.requests.get(eventId);
    }
    if (!row || isFinalStatus(row.status) || row.status === 'processing' || row.status === 'queued') {
      throw new ConflictError(`Nothing is running for event ${eventId}${row ? ` (it is ${row.status})` : ''}.`);
    }
    return this.closeWaiting(row.accountId, row.agentId, row.conversationKey, row);
  }

  /**
   * `POST /agents/{agentId}/conversations/{conversationKey}/cancel`. Another account's agent is
   * a 404. A turn that holds the conversation but has not registered yet (its tools are being
   * built) is waited for and stopped; when nothing runs or waits, the registry is asked again
   * for about a second, so an `/async` request a worker claims meanwhile is stopped too.
   */
  async cancelConversation(accountId: string, agentId: string, conversationKey: string): Promise<CancelAnswer> {
    await this.options.agents.load(accountId, agentId);
    const target: CancelTarget = { accountId, agentId, conversationKey };
    for (let attempt = 0; ; attempt += 1) {
      const found = await this.runningTurnOrLock(target, conversationLockKey(accountId, agentId, conversationKey));
      if ('turn' in found) return this.runningAnswer(conversationKey, found.turn.eventId, found.turn.turnId);
      try {
        return await this.closeWaiting(accountId, agentId, conversationKey, undefined, found.release);
      } catch (error) {
        if (!(error instanceof ConflictError) || attempt + 1 >= startingTurnAttempts) throw error;
      }
      await pause(startingTurnWaitMs);
    }
  }

  /**
   * The running turn `target` names (asked to stop), or the conversation's lock. A turn holds
   * the lock from before it registers until after it unregisters, so while the lock is not
   * ours the registry is asked again: waiting for the lock alone would wait out the whole turn
   * that is about to register. Once the lock is ours no turn of the conversation runs.
   */
  private async runningTurnOrLock(target: CancelTarget, lockKey: string): Promise<{ turn: RunningTurn } | { release: () => void }> {
    const { runningTurns, locks } = this.options;
    const running = await runningTurns.requestCancel(target);
    if (running) return { turn: running };
    const acquiring = locks.acquire(lockKey).then((release) => ({ release }));
    for (;;) {
      const acquired = await Promise.race([acquiring, pause(startingTurnWaitMs).then(() => undefined)]);
      if (acquired) return acquired;
      const found = await runningTurns.requestCancel(target);
      if (found) {
        // Our place in the lock's line is given up as soon as it comes.
        acquiring.then(({ release }) => release()).catch(() => undefined);
        return { turn: found };
      }
    }
  }

  private runningAnswer(conversationKey: string, eventId: string, turnId: string): CancelAnswer {
    return { cancelled: true, conversationKey, eventId, turnId, state: 'running', closedApprovals: [], closedAsyncTools: [] };
  }

  /**
   * A run that stopped to wait: under the conversation's lock, its open approvals are denied
   * (a tool message the model reads as `execution-denied`, so the next turn goes on), its
   * async calls still processing end `failed`, and every status row involved says `cancelled`.
   */
  private async closeWaiting(accountId: string, agentId: string, conversationKey: string, row?: AsyncRequestRecord, heldLock?: () => void): Promise<CancelAnswer> {
    const { options } = this;
    const release = heldLock ?? (await options.locks.acquire(conversationLockKey(accountId, agentId, conversationKey)));
    try {
      const timestamp = options.now().toISOString();
      const loaded = await options.conversations.load(accountId, agentId, conversationKey, timestamp);
      const state = loaded.state;
      const eventIds = new Set<string>(row ? [row.eventId] : []);
      const wanted = row ? new Set((row.pendingApprovals ?? []).map((approval) => approval.approvalId)) : undefined;
      const lastTurn = lastMessage(state.messages)?.turnId;
      const open = state.approvals.filter((approval) => !approval.submitted && (wanted ? wanted.has(approval.approvalId) || approval.eventId === row?.eventId : true));
      const closedApprovals = open.length > 0 ? denyOpenApprovals(state, () => approvalReason, lastTurn ?? 'cancel', timestamp).map((approval) => approval.approvalId) : [];
      for (const approval of open) if (approval.eventId) eventIds.add(approval.eventId);
      const resultIds = row ? (row.pendingAsyncTools ?? []).filter((call) => call.status === 'processing').map((call) => call.resultId) : processingCallsOfLastTurn(state);
      const closedAsyncTools: string[] = [];
      for (const groupId of new Set(resultIds.map(groupIdOfResult).filter((id): id is string => id !== undefined))) {
        const { closed, eventId } = await options.settlement.cancelGroup(groupId, cancelledReason);
        closedAsyncTools.push(...closed);
        if (eventId && closed.length > 0) eventIds.add(eventId);
      }
      if (closedApprovals.length > 0) {
        state.updatedAt = timestamp;
        await saveConversation(options.conversations, state, loaded.version);
      }
      let rowsCancelled = 0;
      for (const eventId of eventIds) if (await options.transitions.cancel({ eventId })) rowsCancelled += 1;
      if (closedApprovals.length === 0 && closedAsyncTools.length === 0 && rowsCancelled === 0) {
        throw new ConflictError(`Nothing is running on conversation "${conversationKey}": no turn, no pending approval, no async tool call waiting.`);
      }
      options.logger.info({ event: 'cancel', agentId, conversationKey, approvals: closedApprovals.length, asyncTools: closedAsyncTools.length }, 'waiting run cancelled');
      const eventId = row?.eventId ?? [...eventIds][0];
      return { cancelled: true, conversationKey, ...(eventId ? { eventId } : {}), state: 'waiting', closedApprovals, closedAsyncTools };
    } finally {
      release();
    }
  }

}
