import type { ModelMessage, ToolModelMessage } from 'ai';
import { type ApprovalRecord, type ConversationState, lastMessage } from '../conversations/conversation.js';
import { ConflictError, InvalidRequestError } from '../errors.js';
import type { ApprovalAnswer } from './turn-input.js';

/**
 * Approvals are a stored state machine keyed by approvalId: `pending` → `approved`/`denied`
 * (answered) → submitted to the model with the other answers of the same step, in one tool
 * message. The conversation row's version makes each transition a conditional write.
 */

function appendMessage(state: ConversationState, message: ModelMessage, turnId: string, now: string): void {
  state.messages.push({ message, turnId, createdAt: now });
}

/** Record the approval requests the model's last step made (from the step's response messages). */
export function recordApprovalRequests(state: ConversationState, responseMessages: ModelMessage[], turnId: string, now: string, eventId?: string): ApprovalRecord[] {
  const calls = new Map<string, { toolName: string; input: unknown }>();
  const recorded: ApprovalRecord[] = [];
  for (const message of responseMessages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
      if (part.type === 'tool-approval-request') {
        const call = calls.get(part.toolCallId);
        const record: ApprovalRecord = {
          approvalId: part.approvalId,
          toolCallId: part.toolCallId,
          toolName: call?.toolName ?? 'unknown',
          input: call?.input ?? null,
          status: 'pending',
          submitted: false,
          turnId,
          requestedAt: now,
          ...(eventId ? { eventId } : {}),
        };
        state.approvals.push(record);
        recorded.push(record);
      }
    }
  }
  return recorded;
}

/**
 * Apply answers. Unknown approvalId: 400; answered already: 409. Returns the tool message to
 * hand to the model once every approval of the step is answered, else undefined (the answers
 * are kept and the rest stay pending).
 */
export function applyApprovalAnswers(state: ConversationState, answers: ApprovalAnswer[], now: string): ToolModelMessage | undefined {
  const seen = new Set<string>();
  for (const answer of answers) {
    if (seen.has(answer.approvalId)) throw new InvalidRequestError(`approvalId ${answer.approvalId} is answered twice in this request`);
    seen.add(answer.approvalId);
    const approval = state.approvals.find((candidate) => candidate.approvalId === answer.approvalId);
    if (!approval) throw new InvalidRequestError(`approvalId ${answer.approvalId} was never issued in this conversation`);
    if (approval.status !== 'pending') throw new ConflictError(`approvalId ${answer.approvalId} was already answered (${approval.status})`);
  }
  for (const answer of answers) {
    const approval = state.approvals.find((candidate) => candidate.approvalId === answer.approvalId)!;
    approval.status = answer.approved ? 'approved' : 'denied';
    approval.answeredAt = now;
    if (answer.reason !== undefined) approval.reason = answer.reason;
  }
  if (state.approvals.some((approval) => approval.status === 'pending')) return undefined;
  const ready = state.approvals.filter((approval) => !approval.submitted);
  if (ready.length === 0) return undefined;
  for (const approval of ready) approval.submitted = true;
  return {
    role: 'tool',
    content: ready.map((approval) => ({
      type: 'tool-approval-response' as const,
      approvalId: approval.approvalId,
      approved: approval.status === 'approved',
      ...(approval.reason !== undefined ? { reason: approval.reason } : {}),
    })),
  };
}

/**
 * Deny every open approval with `reason`, as tool results the model reads as
 * `execution-denied`. Used when a new user message arrives while approvals are pending, and
 * on transports that cannot ask a person (channels, cron). Returns the denied approvals.
 */
export function denyOpenApprovals(state: ConversationState, reason: (approval: ApprovalRecord) => string, turnId: string, now: string): ApprovalRecord[] {
  const open = state.approvals.filter((approval) => !approval.submitted);
  if (open.length === 0) return [];
  for (const approval of open) {
    if (approval.status === 'pending') {
      approval.status = 'denied';
      approval.reason = reason(approval);
      approval.answeredAt = now;
    }
    approval.submitted = true;
  }
  appendMessage(
    state,
    {
      role: 'tool',
      content: open.map((approval) => ({
        type: 'tool-result' as const,
        toolCallId: approval.toolCallId,
        toolName: approval.toolName,
        output:
          approval.status === 'approved'
            ? { type: 'error-text' as const, value: 'The approval was superseded before the tool ran; it was not run.' }
            : { type: 'execution-denied' as const, ...(approval.reason ? { reason: approval.reason } : {}) },
      })),
    },
    turnId,
    now,
  );
  return open;
}

/**
 * A conversation whose last message hands approval answers to the model, with no turn running,
 * was interrupted (the service stopped between the answer and the tool's result). Running the
 * approved tools now could run them twice, so they are closed as not run: at most once.
 */
export function closeInterruptedApprovals(state: ConversationState, turnId: string, now: string): boolean {
  const last = lastMessage(state.messages)?.message;
  if (!last || last.role !== 'tool' || !last.content.some((part) => part.type === 'tool-approval-response')) return false;
  const answered = last.content.filter((part) => part.type === 'tool-approval-response');
  appendMessage(
    state,
    {
      role: 'tool',
      content: answered.map((part) => {
        const approval = state.approvals.find((candidate) => candidate.approvalId === part.approvalId);
        return {
          type: 'tool-result' as const,
          toolCallId: approval?.toolCallId ?? part.approvalId,
          toolName: approval?.toolName ?? 'unknown',
          output: part.approved
            ? { type: 'error-text' as const, value: 'The turn was interrupted after this approval (a restart or a failure): no result was recorded and the tool will not be run again. Ask again if it is still needed.' }
            : { type: 'execution-denied' as const, ...(part.reason ? { reason: part.reason } : {}) },
        };
      }),
    },
    turnId,
    now,
  );
  return true;
}
