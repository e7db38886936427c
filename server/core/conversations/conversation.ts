import type { ModelMessage } from 'ai';
import type { TokenUsage } from '../usage/token-usage.js';

/** One message as stored, with the turn that added it. */
export interface StoredMessage {
  message: ModelMessage;
  turnId: string;
  createdAt: string;
  /** On an assistant message: the tokens of the model call that produced it. */
  usage?: TokenUsage;
  /** On the assistant message a cancel request cut short: the text streamed before the cancel. */
  cancelled?: true;
  /** On the last assistant message of a turn with structured output: the validated value. */
  output?: unknown;
  /**
   * Set on a summary marker: its `message` is the summary of the messages before
   * `summarizedThrough`, sent in their place (server/core/context). Markers are appended like
   * any message (storage is append-only) and never sent where they are stored.
   */
  compaction?: CompactionMarker;
}

/** What a summary marker records about the compaction that wrote it. */
export interface CompactionMarker {
  /** The messages before this index of the conversation are covered by the summary. */
  summarizedThrough: number;
  /** Why it was written: the trigger ratio passed, the provider refused an oversized request, or `POST .../compact`. */
  trigger: 'threshold' | 'overflow' | 'manual';
  /** The request's input tokens before and after, estimated. */
  tokensBefore: number;
  tokensAfter: number;
}

/** True for a summary marker (not a message of the conversation itself). */
export function isCompactionMarker(stored: StoredMessage): stored is StoredMessage & { compaction: CompactionMarker } {
  return stored.compaction !== undefined;
}

/**
 * The conversation's last message, summary markers passed over: a marker appended by a
 * compaction is not a message of the conversation, so "what the last turn wrote" never reads it.
 */
export function lastMessage(messages: readonly StoredMessage[]): StoredMessage | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) if (!isCompactionMarker(messages[index]!)) return messages[index];
  return undefined;
}

/**
 * An approval's life: `pending` until answered; `approved`/`denied` once answered (the
 * answer may wait for the other approvals of the same step before it is submitted);
 * `submitted` once the answers went to the model in one tool message.
 */
export type ApprovalStatus = 'pending' | 'approved' | 'denied';

export interface ApprovalRecord {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  status: ApprovalStatus;
  /** True once the answer has been handed to the model (it cannot change any more). */
  submitted: boolean;
  reason?: string;
  turnId: string;
  requestedAt: string;
  answeredAt?: string;
  /** The status row of the turn that asked (a cancel of that event closes the approval). */
  eventId?: string;
}

export interface ConversationState {
  accountId: string;
  agentId: string;
  conversationKey: string;
  messages: StoredMessage[];
  approvals: ApprovalRecord[];
  createdAt: string;
  updatedAt: string;
}

/** What a client sees of a pending approval. */
export interface PendingApprovalView {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
}

export function pendingApprovals(state: ConversationState): PendingApprovalView[] {
  return state.approvals
    .filter((approval) => approval.status === 'pending')
    .map(({ approvalId, toolCallId, toolName, input }) => ({ approvalId, toolCallId, toolName, input }));
}

export { isValidConversationKey } from './conversation-key.js';
