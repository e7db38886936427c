/**
 * What `GET /status/{eventId}` answers, and the words the CLI uses for it.
 * Fields the CLI does not show are kept as they came, so `--json` prints them unchanged.
 */

export type EventStatusName = 'queued' | 'processing' | 'awaiting_approval' | 'waiting_async_tools' | 'completed' | 'failed' | 'cancelled';

export interface PendingApproval {
  approvalId: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
}

export interface PendingAsyncTool {
  resultId: string;
  toolName?: string;
  status?: string;
}

export interface EventStatus {
  eventId: string;
  /** One of `EventStatusName`; kept a string so a newer service's status does not break the CLI. */
  status: string;
  result?: { text?: string; messages?: unknown[] };
  error?: unknown;
  pendingApprovals?: PendingApproval[];
  pendingAsyncTools?: PendingAsyncTool[];
  [field: string]: unknown;
}

/** The statuses `--wait` stops at; the others (queued, processing, waiting_async_tools) go on by themselves. */
const finalStatuses: ReadonlySet<string> = new Set<EventStatusName>(['completed', 'failed', 'cancelled', 'awaiting_approval']);

export function isFinalStatus(status: string): boolean {
  return finalStatuses.has(status);
}

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** A few words for the spinner and the progress lines: `waiting for 2 async tools`. */
export function statusLabel(event: Pick<EventStatus, 'status' | 'pendingAsyncTools' | 'pendingApprovals'>): string {
  switch (event.status) {
    case 'queued':
      return 'queued';
    case 'processing':
      return 'running';
    case 'waiting_async_tools': {
      const pending = event.pendingAsyncTools?.length;
      return pending ? `waiting for ${plural(pending, 'async tool')}` : 'waiting for async tools';
    }
    case 'awaiting_approval':
      return `waiting for ${plural(event.pendingApprovals?.length ?? 0, 'approval')}`;
    default:
      return event.status;
  }
}

/** The text parts of the assistant messages in `result.messages`, in order. */
function assistantTextParts(messages: readonly unknown[]): string[] {
  const parts: string[] = [];
  for (const message of messages) {
    if ((message as { role?: unknown } | undefined)?.role !== 'assistant') continue;
    const content = (message as { content?: unknown }).content;
    if (typeof content === 'string') parts.push(content);
    else if (Array.isArray(content)) {
      for (const part of content as { type?: unknown; text?: unknown }[]) if (part?.type === 'text' && typeof part.text === 'string') parts.push(part.text);
    }
  }
  return parts.filter((part) => part !== '');
}

/**
 * The reply's text, each text block on its own line as `harness chat -m` prints it. The
 * service's `result.text` runs the blocks of a turn's steps together ("Searching.Found
 * three."), so the blocks are taken from `result.messages` when it has them.
 */
export function replyText(result: EventStatus['result']): string {
  const parts = Array.isArray(result?.messages) ? assistantTextParts(result.messages) : [];
  if (parts.length === 0) return result?.text ?? '';
  return parts.reduce((text, part) => (text === '' || text.endsWith('\n') ? text + part : `${text}\n${part}`), '');
}

/** The event's error as one line, whatever shape it came in. */
export function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown } | undefined)?.message;
  if (typeof message === 'string') return message;
  return error === undefined ? 'no reason given' : JSON.stringify(error);
}

function compactJson(value: unknown, width = 80): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? '';
  } catch {
    text = String(value);
  }
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

/** `  appr_1  delete_file {"path":"a.txt"}` for each pending approval. */
export function formatPendingApprovals(approvals: readonly PendingApproval[]): string {
  return approvals.map((approval) => `  ${approval.approvalId}  ${approval.toolName ?? 'tool'}${approval.input === undefined ? '' : ` ${compactJson(approval.input)}`}`).join('\n');
}

/** `res_1 (test_external_async), res_2` */
export function formatPendingAsyncTools(tools: readonly PendingAsyncTool[]): string {
  return tools.map((tool) => (tool.toolName ? `${tool.resultId} (${tool.toolName})` : tool.resultId)).join(', ');
}
