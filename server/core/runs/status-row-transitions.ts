import type { ModelMessage } from 'ai';
export { cancelledReason } from '../turns/run-reports.js';
export type { CancelledTurn, WaitingTurn } from '../turns/run-reports.js';
import { cancelledReason, type CancelledTurn, type RunReports, type WaitingTurn } from '../turns/run-reports.js';
import type { BusyApplied } from '../agent-config/busy-mode.js';
import type { PendingApprovalView } from '../conversations/conversation.js';
import { ConditionFailedError } from '../storage/table-store.js';
import { addUsage, noUsage, type TokenUsage } from '../usage/token-usage.js';
import { type AsyncRequestRecord, type AsyncRequestStatus, isFinalStatus } from './status-row.js';
import type { AsyncRequestsRepository } from './status-rows-repository.js';

/** How a turn ended, as its status row records it. */
export interface FinishedTurn {
  /** `collected` and `steered` (the message was handed to another run) end the row `completed`, `busy` naming that run. */
  status: Exclude<AsyncRequestStatus, 'queued' | 'processing'> | 'collected' | 'steered';
  /** The busy mode that applied, and the run the message met or was handed to. */
  busy?: BusyApplied;
  text: string;
  messages: ModelMessage[];
  pendingApprovals: PendingApprovalView[];
  /** Tools the turn denied on its own (approvals cannot be given on its path: cron, channels). */
  deniedApprovals?: { toolName: string; reason: string }[];
  error?: { message: string };
  /** The tokens of this run of the turn, added to what the row already counts. */
  usage?: TokenUsage;
  /** This run's model calls, each on its own, appended to the row's. */
  usageByCall?: TokenUsage[];
  /** The validated structured output of a completed turn. */
  output?: { value: unknown };
}



/**
 * A row's usage plus a run's: each run of a turn adds its own calls once (it waits, or it
 * finishes). A row being created counts nothing yet (`{}`).
 */
function withUsage(row: Pick<AsyncRequestRecord, 'usage' | 'usageByCall'>, usage: TokenUsage | undefined, usageByCall: TokenUsage[] | undefined): Pick<AsyncRequestRecord, 'usage' | 'usageByCall'> {
  return {
    ...(usage || row.usage ? { usage: addUsage(row.usage ?? noUsage, usage ?? noUsage) } : {}),
    ...(usageByCall || row.usageByCall ? { usageByCall: [...(row.usageByCall ?? []), ...(usageByCall ?? [])] } : {}),
  };
}

export const interruptedReason = 'service restarted while this turn was running';

/**
 * The status row's state machine, and its only writer: `queued` → `processing` (claimed by
 * one worker) → `awaiting_approval` | `waiting_async_tools` → `completed` | `failed`, or
 * `cancelled` from any of these. Each
 * transition is a conditional write on the row read, so two writers cannot both move it, and
 * nothing moves a row out of `completed` or `failed`.
 */
export class AsyncRequestTransitions implements RunReports {
  private readonly listeners = new Set<(request: AsyncRequestRecord) => void>();

  /**
   * `statusChanged`: told of every transition, by the writer that made it, once (completion
   * webhooks record and queue a finished row there).
   */
  constructor(
    private readonly repository: AsyncRequestsRepository,
    private readonly now: () => Date = () => new Date(),
    private readonly statusChanged?: (request: AsyncRequestRecord) => void,
  ) {}

  /** Observe every transition (the cron scheduler learns how its runs ended so, while it runs). Returns the unsubscribe function. */
  onStatusChange(listener: (request: AsyncRequestRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A new request, `queued` with its input. Throws `ConditionFailedError` when the id is taken. */
  async queue(request: Omit<AsyncRequestRecord, 'status' | 'createdAt' | 'updatedAt'>): Promise<void> {
    const timestamp = this.now().toISOString();
    await this.repository.create({ ...request, status: 'queued', createdAt: timestamp, updatedAt: timestamp });
  }

  /** `queued` → `processing`: the row when this call claimed it, undefined when another did (or it ran). */
  async claim(eventId: string): Promise<AsyncRequestRecord | undefined> {
    const written = await this.move(eventId, (row) => (row.status === 'queued' ? { ...row, status: 'processing' } : undefined));
    return written?.changed ? written.row : undefined;
  }

  /**
   * `processing` → `processing`, by a worker taking over a request whose worker died (its job
   * was delivered again after the lease ran out): the row when this call moved it.
   */
  async takeOver(eventId: string): Promise<AsyncRequestRecord | undefined> {
    const written = await this.move(eventId, (row) => (row.status === 'processing' ? { ...row } : undefined));
    return written?.changed ? written.row : undefined;
  }

  /** A turn waits for external async tools: the row says so, created first when the turn had none. */
  async waitForAsyncTools(turn: WaitingTurn): Promise<void> {
    const timestamp = this.now().toISOString();
    const { pendingAsyncTools, usage, usageByCall, ...request } = turn;
    try {
      const created: AsyncRequestRecord = { ...request, status: 'waiting_async_tools', pendingAsyncTools, ...withUsage({}, usage, usageByCall), createdAt: timestamp, updatedAt: timestamp };
      await this.repository.create(created);
      this.notify(created);
      return;
    } catch (error) {
      // The row exists (an `/async` request or an earlier pass): move it below.
      if (!(error instanceof ConditionFailedError)) throw error;
    }
    await this.move(turn.eventId, (row) => (isFinalStatus(row.status) ? undefined : { ...row, status: 'waiting_async_tools', pendingAsyncTools, ...withUsage(row, usage, usageByCall) }));
  }

  /** The turn ended: its result on the row. A turn that waits for async tools again leaves the row waiting. */
  async finishTurn(eventId: string, turn: FinishedTurn): Promise<void> {
    if (turn.status === 'waiting_async_tools') return;
    await this.move(eventId, (row) =>
      isFinalStatus(row.status)
        ? undefined
        : {
            ...row,
            status: turn.status === 'collected' || turn.status === 'steered' ? 'completed' : turn.status,
            ...(turn.busy ? { busy: turn.busy } : {}),
            result: { text: turn.text, messages: turn.messages, ...(turn.deniedApprovals?.length ? { deniedApprovals: turn.deniedApprovals } : {}) },
            pendingApprovals: turn.pendingApprovals,
            pendingAsyncTools: [],
            ...withUsage(row, turn.usage, turn.usageByCall),
            ...(turn.error ? { error: turn.error.message } : {}),
            ...(turn.output ? { output: turn.output.value } : {}),
          },
    );
  }

  /**
   * A cancel request stopped the turn, or closed a request that was queued or waiting:
   * `cancelled` from any state before the end, the row created when the turn had none.
   * True when this call wrote it.
   */
  async cancel(turn: CancelledTurn | { eventId: string }): Promise<boolean> {
    const timestamp = this.now().toISOString();
    const finished = 'text' in turn ? { result: { text: turn.text, messages: turn.messages } } : {};
    if ('text' in turn) {
      const { text: _text, messages: _messages, usage, usageByCall, ...request } = turn;
      try {
        const created: AsyncRequestRecord = { ...request, status: 'cancelled', ...finished, error: cancelledReason, pendingApprovals: [], pendingAsyncTools: [], ...withUsage({}, usage, usageByCall), createdAt: timestamp, updatedAt: timestamp };
        await this.repository.create(created);
        this.notify(created);
        return true;
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
      }
    }
    const usage = 'text' in turn ? turn.usage : undefined;
    const usageByCall = 'text' in turn ? turn.usageByCall : undefined;
    const written = await this.move(turn.eventId, (row) =>
      isFinalStatus(row.status) ? undefined : { ...row, status: 'cancelled', ...finished, error: cancelledReason, pendingApprovals: [], pendingAsyncTools: [], ...withUsage(row, usage, usageByCall) },
    );
    return written?.changed ?? false;
  }

  /**
   * `queued` → `cancelled`, only while no worker has claimed the request: true when this call
   * wrote it. False when a worker claimed it first (its turn is starting and is stopped as a
   * running turn), or the row is gone or past `queued`.
   */
  async cancelQueued(eventId: string): Promise<boolean> {
    const written = await this.move(eventId, (row) => (row.status === 'queued' ? { ...row, status: 'cancelled', error: cancelledReason, pendingApprovals: [], pendingAsyncTools: [] } : undefined));
    return written?.changed ?? false;
  }

  /** The turn could not run (or its account is disabled): `failed` with the reason, unless already final. */
  async fail(eventId: string, reason: string): Promise<void> {
    await this.move(eventId, (row) => (isFinalStatus(row.status) ? undefined : { ...row, status: 'failed', error: reason }));
  }

  /** At boot: a row left `processing` by a stopped process ends `failed`. True when this call moved it. */
  async failInterrupted(eventId: string): Promise<boolean> {
    const written = await this.move(eventId, (row) => (row.status === 'processing' ? { ...row, status: 'failed', error: interruptedReason } : undefined));
    return written?.changed ?? false;
  }

  private async move(eventId: string, change: (row: AsyncRequestRecord) => AsyncRequestRecord | undefined) {
    const written = await this.repository.change(eventId, (row) => {
      const next = change(row);
      return next ? { ...next, updatedAt: this.now().toISOString() } : undefined;
    });
    if (written?.changed) this.notify(written.row);
    return written;
  }

  private notify(request: AsyncRequestRecord): void {
    this.statusChanged?.(request);
    for (const listener of this.listeners) listener(request);
  }
}
