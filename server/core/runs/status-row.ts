import type { ModelMessage } from 'ai';
import type { PendingAsyncToolView } from '../async-tools/async-tool-result.js';
import type { PendingApprovalView } from '../conversations/conversation.js';
import type { BusyApplied, BusyMode } from '../agent-config/busy-mode.js';
import type { TurnInput } from '../turns/turn-input.js';
import type { TurnOverrides } from '../agent-config/run-overrides.js';
import type { TransportKind } from '../transports/transports.js';
import type { TokenUsage } from '../usage/token-usage.js';

/**
 * Where an async request stands: `queued` → `processing` → `awaiting_approval` |
 * `waiting_async_tools` → `completed` | `failed` | `cancelled`. `completed`, `failed` and
 * `cancelled` (a cancel request stopped it, from any state before the end) are final.
 */
export type AsyncRequestStatus = 'queued' | 'processing' | 'awaiting_approval' | 'waiting_async_tools' | 'completed' | 'failed' | 'cancelled';

export type { PendingAsyncToolView } from '../async-tools/async-tool-result.js';

/**
 * A `/status/{eventId}` row: an `/async` request, a cron run, or a turn of another transport
 * that waits for async tools, and where it stands.
 */
export interface AsyncRequestRecord {
  eventId: string;
  accountId: string;
  agentId: string;
  conversationKey: string;
  transport: TransportKind;
  status: AsyncRequestStatus;
  /** Kept until the worker has run it, so a restart can pick it up again. */
  input?: TurnInput;
  /** The request's `busy`: what its message does when a turn runs on the conversation (not shown on `/status`). */
  busyMode?: BusyMode;
  /** The busy mode that applied when its message met a running turn, and the run it met or was handed to. */
  busy?: BusyApplied;
  /** The request's `model` settings and `instructions`: the run's, never the conversation's (not shown on `/status`). */
  overrides?: TurnOverrides;
  /** `deniedApprovals`: tools that needed an approval this path cannot give, so they did not run. */
  result?: { text: string; messages: ModelMessage[]; deniedApprovals?: { toolName: string; reason: string }[] };
  error?: string;
  /** The validated structured output of a completed turn (present, even as null, only then). */
  output?: unknown;
  pendingApprovals?: PendingApprovalView[];
  pendingAsyncTools?: PendingAsyncToolView[];
  /** The tokens of every model call of this turn so far, its continuations included. */
  usage?: TokenUsage;
  /** The same calls each on its own, in order (`usage` is their sum). */
  usageByCall?: TokenUsage[];
  /** The W3C `traceparent` of the span that queued the request (tracing on): its run continues that trace. */
  traceparent?: string;
  createdAt: string;
  updatedAt: string;
}

export function isFinalStatus(status: AsyncRequestStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
