import type { UIMessageChunk } from 'ai';
import type { ApprovalAnswer } from './chat-stream-source.js';

/**
 * The transcript model of a chat: a pure fold of UI message chunks (and the user's own
 * messages and approval answers) into entries the UI and the one-shot printer show.
 */

/** How a turn ended, as the `status` of the service's `finish` chunk metadata says. */
export type TurnStatus = 'completed' | 'awaiting_approval' | 'waiting_async_tools' | 'failed' | 'cancelled';

/** `idle` before the first turn, `streaming` while a stream is open. */
export type TranscriptStatus = TurnStatus | 'idle' | 'streaming';

export type ToolCallState =
  | 'input-streaming'
  | 'input-available'
  | 'input-error'
  | 'approval-requested'
  | 'approval-answered'
  | 'output-available'
  | 'output-error'
  | 'output-denied';

export interface UserEntry {
  kind: 'user';
  text: string;
}

export interface TextEntry {
  kind: 'text' | 'reasoning';
  id: string;
  text: string;
  /** True until its `text-end` (or `reasoning-end`). */
  streaming: boolean;
}

export interface ToolCallEntry {
  kind: 'tool-call';
  toolCallId: string;
  toolName: string;
  state: ToolCallState;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  /** Set when the call needed an approval; `approved`/`reason` once answered. */
  approval?: { approvalId: string; approved?: boolean; reason?: string };
}

/** A `data-async-tool-settled` chunk: an async tool call finished. */
export interface AsyncSettledEntry {
  kind: 'async-settled';
  resultId?: string;
  toolCallId?: string;
  toolName?: string;
  status?: string;
  response?: unknown;
  error?: unknown;
}

export interface SourceEntry {
  kind: 'source';
  url: string;
  title?: string;
}

export interface ErrorEntry {
  kind: 'error';
  errorText: string;
}

export type TranscriptEntry = UserEntry | TextEntry | ToolCallEntry | AsyncSettledEntry | SourceEntry | ErrorEntry;

/** An approval request with what it would run. */
export interface ApprovalRequest {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** An approval request and, once given, its answer. */
export interface ApprovalRecord extends ApprovalRequest {
  approved?: boolean;
  reason?: string;
}

export interface ChatTranscript {
  entries: readonly TranscriptEntry[];
  approvals: readonly ApprovalRecord[];
  status: TranscriptStatus;
  /** The `finish` metadata status of the open stream, if it sent one. */
  finishStatus?: TurnStatus;
  /** Whether the open stream carried an `error` chunk. */
  streamFailed?: boolean;
}

export const emptyTranscript: ChatTranscript = { entries: [], approvals: [], status: 'idle' };

const turnStatuses = new Set<string>(['completed', 'awaiting_approval', 'waiting_async_tools', 'failed', 'cancelled']);

/** Approval requests that have no answer yet. */
export function pendingApprovals(transcript: ChatTranscript): ApprovalRecord[] {
  return transcript.approvals.filter((approval) => approval.approved === undefined);
}

export function addUserMessage(transcript: ChatTranscript, text: string): ChatTranscript {
  return { ...transcript, entries: [...transcript.entries, { kind: 'user', text }] };
}

/** A stream opens: the turn is under way again. */
export function startStream(transcript: ChatTranscript): ChatTranscript {
  return { ...transcript, status: 'streaming', finishStatus: undefined, streamFailed: false };
}

/**
 * The stream ended cleanly: the status is what `finish` said, else derived from what
 * came (an error chunk: failed; open approvals: awaiting_approval; else completed).
 * An error chunk wins over a `finish` that claims success.
 */
export function endStream(transcript: ChatTranscript): ChatTranscript {
  const entries = transcript.entries.map((entry) => (entry.kind === 'text' || entry.kind === 'reasoning') && entry.streaming ? { ...entry, streaming: false } : entry);
  let status: TurnStatus;
  if (transcript.streamFailed) status = 'failed';
  else if (transcript.finishStatus) status = transcript.finishStatus;
  else status = pendingApprovals(transcript).length > 0 ? 'awaiting_approval' : 'completed';
  return { ...transcript, entries, status, finishStatus: undefined, streamFailed: false };
}

/** The turn could not go on (an HTTP error, a broken stream): shown as an error entry. */
export function failStream(transcript: ChatTranscript, message: string): ChatTranscript {
  const ended = endStream(transcript);
  return { ...ended, entries: [...ended.entries, { kind: 'error', errorText: message }], status: 'failed' };
}

/** Records the user's answers on the approvals and their tool calls. */
export function recordApprovalAnswers(transcript: ChatTranscript, answers: readonly ApprovalAnswer[]): ChatTranscript {
  const byId = new Map(answers.map((answer) => [answer.approvalId, answer]));
  const approvals = transcript.approvals.map((approval) => {
    const answer = byId.get(approval.approvalId);
    return answer ? { ...approval, approved: answer.approved, reason: answer.reason } : approval;
  });
  const entries = transcript.entries.map((entry) => {
    const answer = entry.kind === 'tool-call' && entry.approval ? byId.get(entry.approval.approvalId) : undefined;
    if (!answer || entry.kind !== 'tool-call') return entry;
    return { ...entry, state: 'approval-answered' as const, approval: { approvalId: answer.approvalId, approved: answer.approved, reason: answer.reason } };
  });
  return { ...transcript, entries, approvals };
}

function updateToolCall(transcript: ChatTranscript, toolCallId: string, update: (entry: ToolCallEntry) => ToolCallEntry, toolName = 'tool'): ChatTranscript {
  const index = transcript.entries.findLastIndex((entry) => entry.kind === 'tool-call' && entry.toolCallId === toolCallId);
  if (index === -1) {
    const created = update({ kind: 'tool-call', toolCallId, toolName, state: 'input-streaming' });
    return { ...transcript, entries: [...transcript.entries, created] };
  }
  const entries = [...transcript.entries];
  entries[index] = update(entries[index] as ToolCallEntry);
  return { ...transcript, entries };
}

function appendText(transcript: ChatTranscript, kind: 'text' | 'reasoning', id: string, delta: string): ChatTranscript {
  // Ids repeat across streams (each step may start at "0"), so only an open block matches.
  const index = transcript.entries.findLastIndex((entry) => entry.kind === kind && entry.id === id && entry.streaming);
  if (index === -1) return { ...transcript, entries: [...transcript.entries, { kind, id, text: delta, streaming: true }] };
  const entries = [...transcript.entries];
  const entry = entries[index] as TextEntry;
  entries[index] = { ...entry, text: entry.text + delta };
  return { ...transcript, entries };
}

function closeText(transcript: ChatTranscript, kind: 'text' | 'reasoning', id: string): ChatTranscript {
  const index = transcript.entries.findLastIndex((entry) => entry.kind === kind && entry.id === id && entry.streaming);
  if (index === -1) return transcript;
  const entries = [...transcript.entries];
  entries[index] = { ...(entries[index] as TextEntry), streaming: false };
  return { ...transcript, entries };
}

function metadataStatus(metadata: unknown): TurnStatus | undefined {
  const status = (metadata as { status?: unknown } | undefined)?.status;
  return typeof status === 'string' && turnStatuses.has(status) ? (status as TurnStatus) : undefined;
}

function asyncSettled(data: unknown): AsyncSettledEntry {
  const fields = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  return {
    kind: 'async-settled',
    resultId: text(fields.resultId),
    toolCallId: text(fields.toolCallId),
    toolName: text(fields.toolName),
    status: text(fields.status),
    response: fields.response,
    error: fields.error,
  };
}

/** Folds one chunk into the transcript. Chunks it has no use for leave it unchanged. */
export function applyChunk(transcript: ChatTranscript, chunk: UIMessageChunk): ChatTranscript {
  switch (chunk.type) {
    case 'text-start':
      return { ...transcript, entries: [...transcript.entries, { kind: 'text', id: chunk.id, text: '', streaming: true }] };
    case 'text-delta':
      return appendText(transcript, 'text', chunk.id, chunk.delta);
    case 'text-end':
      return closeText(transcript, 'text', chunk.id);
    case 'reasoning-start':
      return { ...transcript, entries: [...transcript.entries, { kind: 'reasoning', id: chunk.id, text: '', streaming: true }] };
    case 'reasoning-delta':
      return appendText(transcript, 'reasoning', chunk.id, chunk.delta);
    case 'reasoning-end':
      return closeText(transcript, 'reasoning', chunk.id);
    case 'tool-input-start':
      return updateToolCall(transcript, chunk.toolCallId, (entry) => ({ ...entry, toolName: chunk.toolName }), chunk.toolName);
    case 'tool-input-available':
      return updateToolCall(transcript, chunk.toolCallId, (entry) => ({ ...entry, toolName: chunk.toolName, input: chunk.input, state: 'input-available' }), chunk.toolName);
    case 'tool-input-error':
      return updateToolCall(transcript, chunk.toolCallId, (entry) => ({ ...entry, toolName: chunk.toolName, input: chunk.input, state: 'input-error', errorText: chunk.errorText }), chunk.toolName);
    case 'tool-approval-request': {
      const withRequest = updateToolCall(transcript, chunk.toolCallId, (entry) => ({ ...entry, state: 'approval-requested', approval: { approvalId: chunk.approvalId } }));
      const call = withRequest.entries.findLast((entry): entry is ToolCallEntry => entry.kind === 'tool-call' && entry.toolCallId === chunk.toolCallId);
      const request: ApprovalRecord = { approvalId: chunk.approvalId, toolCallId: chunk.toolCallId, toolName: call?.toolName ?? 'tool', input: call?.input };
      return { ...withRequest, approvals: [...withRequest.approvals.filter((approval) => approval.approvalId !== chunk.approvalId), request] };
    }
    case 'tool-output-available':
      // A preliminary output is a progress report; the final one replaces it.
      return updateToolCall(transcript, chunk.toolCallId, (entry) => ({ ...entry, state: 'output-available', output: chunk.output }));
    case 'tool-output-error':
      return updateToolCall(transcript, chunk.toolCallId, (entry) => ({ ...entry, state: 'output-error', errorText: chunk.errorText }));
    case 'tool-output-denied':
      return updateToolCall(transcript, chunk.toolCallId, (entry) => ({ ...entry, state: 'output-denied' }));
    case 'source-url':
      return { ...transcript, entries: [...transcript.entries, { kind: 'source', url: chunk.url, title: chunk.title }] };
    case 'error':
      return { ...transcript, streamFailed: true, entries: [...transcript.entries, { kind: 'error', errorText: chunk.errorText }] };
    case 'abort':
      return { ...transcript, streamFailed: true, entries: [...transcript.entries, { kind: 'error', errorText: `the turn was aborted${chunk.reason ? `: ${chunk.reason}` : ''}` }] };
    case 'finish':
    case 'message-metadata':
      return { ...transcript, finishStatus: metadataStatus(chunk.messageMetadata) ?? transcript.finishStatus };
    default:
      if (chunk.type === 'data-async-tool-settled') {
        return { ...transcript, entries: [...transcript.entries, asyncSettled((chunk as { data?: unknown }).data)] };
      }
      return transcript;
  }
}

/** Folds a whole recorded stream: start, every chunk, clean end. */
export function foldStream(transcript: ChatTranscript, chunks: Iterable<UIMessageChunk>): ChatTranscript {
  let folded = startStream(transcript);
  for (const chunk of chunks) folded = applyChunk(folded, chunk);
  return endStream(folded);
}

/** What `harness chat -m ... --json` reports about the entries from `fromEntry` on. */
export interface TurnSummary {
  text: string;
  toolCalls: { toolCallId: string; toolName: string; state: ToolCallState; input?: unknown; output?: unknown; errorText?: string }[];
  approvals: ApprovalRecord[];
}

/** `earlierCalls`: tool calls before `fromEntry` that this run answered (approvals left pending in the history). */
export function summarizeTurn(transcript: ChatTranscript, fromEntry = 0, earlierCalls: ReadonlySet<string> = new Set()): TurnSummary {
  const entries = transcript.entries.slice(fromEntry);
  const earlier = transcript.entries.slice(0, fromEntry).filter((entry): entry is ToolCallEntry => entry.kind === 'tool-call' && earlierCalls.has(entry.toolCallId));
  const calls = [...earlier, ...entries.filter((entry): entry is ToolCallEntry => entry.kind === 'tool-call')];
  const callIds = new Set(calls.map((call) => call.toolCallId));
  return {
    text: entries
      .filter((entry): entry is TextEntry => entry.kind === 'text')
      .map((entry) => entry.text)
      .join('\n'),
    toolCalls: calls.map(({ toolCallId, toolName, state, input, output, errorText }) => ({ toolCallId, toolName, state, input, output, errorText })),
    approvals: transcript.approvals.filter((approval) => callIds.has(approval.toolCallId)),
  };
}
