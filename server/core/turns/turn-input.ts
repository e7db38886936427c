import type { UserModelMessage } from 'ai';

/** One answer to an approval request (AI SDK `tool-approval-response`). */
export interface ApprovalAnswer {
  approvalId: string;
  approved: boolean;
  reason?: string;
}

/** What a turn is asked to do: answer a user message, or resume with approval answers. */
export type TurnInput = { kind: 'user'; message: UserModelMessage } | { kind: 'approvals'; answers: ApprovalAnswer[] };

/** `cancelled`: a cancel request stopped the turn; what it had streamed is stored, marked. */
/**
 * How a turn ended. `collected` and `steered` end a message that ran no turn of its own: it met
 * a running turn and was handed to another run (`busy` on the result names it).
 */
export type TurnStatus = 'completed' | 'awaiting_approval' | 'waiting_async_tools' | 'failed' | 'cancelled' | 'collected' | 'steered';
