import { userModelMessageSchema, type UserModelMessage } from 'ai';
import { InvalidRequestError } from '../errors.js';
import { isValidConversationKey } from '../conversations/conversation.js';
import type { ApprovalAnswer, TurnInput } from '../turns/turn-input.js';
import { parseTurnOverrides, type TurnOverrides } from '../agent-config/run-overrides.js';
import { isRecord } from '../is-record.js';
import { type BusyMode, parseBusyMode } from '../agent-config/busy-mode.js';

export interface ParsedChatBody {
  conversationKey: string;
  input: TurnInput;
  /** `native` (`{conversationKey, message}`) or `transport` (`{id, messages}`, as the AI SDK's chat transport sends it). */
  form: 'native' | 'transport';
  /**
   * The id of the assistant message a transport body answers approvals in: the turn's stream
   * goes on in that message, as `useChat` expects, instead of starting a new one.
   */
  continuesMessageId?: string;
  /** The body's `model` settings and `instructions`, for this run only. */
  overrides?: TurnOverrides;
  /** The body's `busy`: what the message does when a turn runs on the conversation. */
  busy?: BusyMode;
}

function checkConversationKey(value: unknown, field: string): string {
  if (typeof value !== 'string' || !isValidConversationKey(value)) {
    throw new InvalidRequestError(`${field} must be a string of 1-256 characters without control characters`);
  }
  return value;
}

function parseApprovalAnswer(part: unknown, field: string): ApprovalAnswer {
  if (!isRecord(part) || part.type !== 'tool-approval-response') {
    throw new InvalidRequestError(`${field} must be a {type: "tool-approval-response", approvalId, approved, reason?} part`);
  }
  if (typeof part.approvalId !== 'string' || part.approvalId.length === 0 || part.approvalId.length > 200) throw new InvalidRequestError(`${field}.approvalId must be a non-empty string`);
  if (typeof part.approved !== 'boolean') throw new InvalidRequestError(`${field}.approved must be a boolean`);
  if (part.reason !== undefined && (typeof part.reason !== 'string' || part.reason.length > 2000)) throw new InvalidRequestError(`${field}.reason must be a string of at most 2000 characters`);
  return { approvalId: part.approvalId, approved: part.approved, ...(typeof part.reason === 'string' ? { reason: part.reason } : {}) };
}

function parseNativeMessage(message: unknown): TurnInput {
  if (typeof message === 'string') {
    if (message.trim().length === 0) throw new InvalidRequestError('message must not be empty');
    return { kind: 'user', message: { role: 'user', content: message } };
  }
  if (!isRecord(message)) throw new InvalidRequestError('message must be a string, a user message or a tool message of tool-approval-response parts');
  if (message.role === 'tool') {
    if (!Array.isArray(message.content) || message.content.length === 0) throw new InvalidRequestError('message.content must be a non-empty array of tool-approval-response parts');
    return { kind: 'approvals', answers: message.content.map((part, index) => parseApprovalAnswer(part, `message.content.${index}`)) };
  }
  if (message.role === 'user') {
    const parsed = userModelMessageSchema.safeParse(message);
    if (!parsed.success) throw new InvalidRequestError(`message is not a valid user message: ${parsed.error.issues[0]?.path.join('.') || 'content'} ${parsed.error.issues[0]?.message ?? ''}`.trim());
    return { kind: 'user', message: parsed.data as UserModelMessage };
  }
  throw new InvalidRequestError('message.role must be "user" or "tool"');
}

/** The last message of a `DefaultChatTransport` body: user text, or answered approvals. */
function parseUiMessage(message: unknown): TurnInput {
  if (!isRecord(message) || !Array.isArray(message.parts)) throw new InvalidRequestError('messages must end with a UI message that has parts');
  const parts = message.parts.filter(isRecord);
  if (message.role === 'user') {
    const text = parts
      .filter((part) => part.type === 'text' && typeof part.text === 'string')
      .map((part) => String(part.text))
      .join('\n');
    if (text.trim().length === 0) throw new InvalidRequestError('the last message must have text');
    return { kind: 'user', message: { role: 'user', content: text } };
  }
  if (message.role === 'assistant') {
    const answers: ApprovalAnswer[] = [];
    for (const part of parts) {
      const approval = part.approval;
      if (part.state !== 'approval-responded' || !isRecord(approval)) continue;
      if (typeof approval.id !== 'string' || typeof approval.approved !== 'boolean') throw new InvalidRequestError('an approval-responded part needs approval.id and approval.approved');
      answers.push({ approvalId: approval.id, approved: approval.approved, ...(typeof approval.reason === 'string' ? { reason: approval.reason } : {}) });
    }
    if (answers.length === 0) throw new InvalidRequestError('the last message is an assistant message with no approval-responded parts: nothing to do');
    return { kind: 'approvals', answers };
  }
  throw new InvalidRequestError('the last message must come from the user, or be the assistant message carrying approval answers');
}

/**
 * A chat request body in either form the chat route takes: native `{conversationKey, message}`, or
 * what the AI SDK's `DefaultChatTransport` sends, `{id, messages}` (the server keeps the
 * history, so only the last message is read).
 */
export function parseChatBody(body: unknown): ParsedChatBody {
  if (!isRecord(body)) throw new InvalidRequestError('body must be a JSON object');
  const overrides = parseTurnOverrides(body);
  const busy = parseBusyMode(body.busy, 'busy');
  const withOverrides = { ...(overrides ? { overrides } : {}), ...(busy ? { busy } : {}) };
  if ('conversationKey' in body || 'message' in body) {
    if (!('message' in body)) throw new InvalidRequestError('message is required');
    return { conversationKey: checkConversationKey(body.conversationKey, 'conversationKey'), input: parseNativeMessage(body.message), form: 'native', ...withOverrides };
  }
  if ('messages' in body || 'id' in body) {
    if (!Array.isArray(body.messages) || body.messages.length === 0) throw new InvalidRequestError('messages must be a non-empty array');
    const last: unknown = body.messages.at(-1);
    const input = parseUiMessage(last);
    const continuesMessageId = input.kind === 'approvals' && isRecord(last) && typeof last.id === 'string' && last.id.length > 0 ? last.id : undefined;
    return { conversationKey: checkConversationKey(body.id, 'id'), input, form: 'transport', ...(continuesMessageId ? { continuesMessageId } : {}), ...withOverrides };
  }
  throw new InvalidRequestError('body must be {conversationKey, message} or {id, messages}');
}
