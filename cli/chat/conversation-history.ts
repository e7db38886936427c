import type { ApiClient } from '../api-client.js';
import { ApiError } from '../cli-error.js';
import type { ApprovalRecord, ChatTranscript, ToolCallEntry, TranscriptEntry } from './chat-transcript.js';
import { emptyTranscript } from './chat-transcript.js';

/** A stored message as the service returns it: an AI SDK model message. */
export interface StoredMessage {
  role: 'user' | 'assistant' | 'tool' | 'system';
  content: string | Record<string, unknown>[];
}

/** `GET /agents/{agentId}/conversations/{conversationKey}`. */
export interface ConversationHistory {
  conversationKey: string;
  messages: StoredMessage[];
  pendingApprovals?: { approvalId: string; toolCallId: string; toolName: string; input: unknown }[];
}

/** The stored conversation, or `undefined` when it does not exist yet (404). */
export async function loadConversation(agentService: ApiClient, agentId: string, conversationKey: string): Promise<ConversationHistory | undefined> {
  try {
    return await agentService.send<ConversationHistory>('GET', `/agents/${encodeURIComponent(agentId)}/conversations/${encodeURIComponent(conversationKey)}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Applies a stored tool result (`output: {type, value | reason}`) to its call. */
function applyToolResult(call: ToolCallEntry, output: Record<string, unknown> | undefined): ToolCallEntry {
  switch (output?.type) {
    case 'execution-denied':
      return { ...call, state: 'output-denied', approval: { approvalId: call.approval?.approvalId ?? '', approved: false, reason: text(output.reason) || undefined } };
    case 'error-text':
      return { ...call, state: 'output-error', errorText: text(output.value) };
    case 'error-json':
      return { ...call, state: 'output-error', errorText: JSON.stringify(output.value) };
    default:
      return { ...call, state: 'output-available', output: output?.value };
  }
}

/** Folds stored model messages into a transcript, so prior history shows like live turns. */
export function transcriptFromHistory(history: ConversationHistory | undefined): ChatTranscript {
  if (!history) return emptyTranscript;
  const entries: TranscriptEntry[] = [];
  const calls = new Map<string, number>();
  const updateCall = (toolCallId: string, update: (call: ToolCallEntry) => ToolCallEntry): void => {
    const index = calls.get(toolCallId);
    if (index !== undefined) entries[index] = update(entries[index] as ToolCallEntry);
  };
  for (const message of history.messages) {
    if (message.role === 'system') continue;
    const parts = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const part of parts) {
      if (part.type === 'text' && text(part.text) !== '') {
        entries.push(message.role === 'user' ? { kind: 'user', text: text(part.text) } : { kind: 'text', id: `history-${entries.length}`, text: text(part.text), streaming: false });
      } else if (part.type === 'tool-call') {
        calls.set(text(part.toolCallId), entries.length);
        entries.push({ kind: 'tool-call', toolCallId: text(part.toolCallId), toolName: text(part.toolName), input: part.input, state: 'input-available' });
      } else if (part.type === 'tool-approval-request') {
        updateCall(text(part.toolCallId), (call) => ({ ...call, state: 'approval-requested', approval: { approvalId: text(part.approvalId) } }));
      } else if (part.type === 'tool-result') {
        updateCall(text(part.toolCallId), (call) => applyToolResult(call, part.output as Record<string, unknown> | undefined));
      }
    }
  }
  const approvals: ApprovalRecord[] = (history.pendingApprovals ?? []).map(({ approvalId, toolCallId, toolName, input }) => ({ approvalId, toolCallId, toolName, input }));
  return { entries, approvals, status: approvals.length > 0 ? 'awaiting_approval' : 'idle' };
}
