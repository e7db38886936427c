import type { TransportKind } from '../transports/transports.js';
import type { TurnOverrides } from '../agent-config/run-overrides.js';

export type AsyncExecution = 'same-invocation' | 'external-dispatch';
export type AsyncToolStatus = 'processing' | 'completed' | 'failed';

/**
 * How a continuation finds its way back to the caller on paths other than SSE: the transport, the event whose status row it settles, and where a
 * reply goes (a NATS reply subject, a channel chat...).
 */
/** An async tool call a run waits on, as its status row and a turn's answer show it. */
export interface PendingAsyncToolView {
  resultId: string;
  toolCallId: string;
  toolName: string;
  execution: AsyncExecution;
  status: AsyncToolStatus;
}

export interface DeliveryMetadata {
  transport: TransportKind;
  /** The `/status/{eventId}` row the final result settles: the spec's `asyncResultEventId`. */
  eventId: string;
  replyTarget?: Record<string, unknown>;
  /** The run's request `model` settings and `instructions`: its continuation runs with them too. */
  overrides?: TurnOverrides;
}

/** One record per async tool call: it carries how its continuation is delivered. */
export interface AsyncToolResult {
  kind: 'result';
  resultId: string;
  groupId: string;
  accountId: string;
  agentId: string;
  conversationKey: string;
  turnId: string;
  toolCallId: string;
  toolName: string;
  execution: AsyncExecution;
  status: AsyncToolStatus;
  response?: Record<string, unknown>;
  error?: string;
  delivery: DeliveryMetadata;
  /** Event id that settles the original `/async` status row. */
  asyncResultEventId: string;
  createdAt: string;
  updatedAt: string;
  settledAt?: string;
  /** Set when a cancel of its turn closed the call: it ended `failed` and cannot be completed. */
  cancelledAt?: string;
}

/**
 * The dispatch group of one model pass, stored beside its rows (same table, same partition).
 * Sealed once the pass has registered all its calls; the continuation is claimed exactly once,
 * by the write that finds the group sealed with every row settled.
 */
export interface DispatchGroup {
  kind: 'group';
  groupId: string;
  accountId: string;
  agentId: string;
  conversationKey: string;
  turnId: string;
  resultIds: string[];
  sealed: boolean;
  sealedAt?: string;
  /** Bumped by every settlement, so two last siblings cannot both miss the end. */
  settledCount: number;
  delivery: DeliveryMetadata;
  continuation?: {
    /** The internal continuation's own event id: the de-duplication key, so a continuation runs once. */
    continuationEventId: string;
    state: 'claimed' | 'done';
    claimedAt: string;
    finishedAt?: string;
  };
  /** Set when its turn was cancelled: its calls are closed and no continuation runs. */
  cancelledAt?: string;
  /** The W3C `traceparent` of the turn that made the group (tracing on): its continuation's span links to it. */
  traceparent?: string;
  createdAt: string;
  updatedAt: string;
}

export type AsyncTableRow = AsyncToolResult | DispatchGroup;

export const groupKey = 'group';

/** `res_<groupId>_<n>`: a result id names its group, so a completion finds the partition. */
export function resultIdFor(groupId: string, index: number): string {
  return `res_${groupId}_${index}`;
}

export function groupIdOfResult(resultId: string): string | undefined {
  return /^res_(grp_[a-z0-9]{24})_\d{1,4}$/.exec(resultId)?.[1];
}

export function completePathFor(resultId: string): string {
  return `/async-tools/${resultId}/complete`;
}
