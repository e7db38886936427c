import type { AsyncSettledEntry, ApprovalRequest, ToolCallEntry } from './chat-transcript.js';

/**
 * Compact one-line forms of tool activity, shared by the Ink UI and the one-shot printer:
 * `⚙ alphaSearch {"query":"cats"} → 3 results`.
 */

/** Cuts text to `width` characters on one line, with `…` when cut. */
export function truncate(text: string, width: number): string {
  const oneLine = text.replace(/\s*\n\s*/g, ' ');
  return oneLine.length <= width ? oneLine : `${oneLine.slice(0, Math.max(0, width - 1))}…`;
}

function json(value: unknown): string {
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** A short description of a tool's output: a count for result lists, else its text or JSON. */
export function summarizeOutput(output: unknown, width = 60): string {
  if (Array.isArray(output)) return plural(output.length, 'item');
  if (typeof output === 'string') return truncate(output, width);
  if (typeof output === 'object' && output !== null) {
    const results = (output as { results?: unknown }).results;
    if (Array.isArray(results)) return plural(results.length, 'result');
  }
  return truncate(json(output), width);
}

function outcome(entry: ToolCallEntry): string {
  switch (entry.state) {
    case 'input-streaming':
    case 'input-available':
      return '…';
    case 'input-error':
      return `invalid input: ${truncate(entry.errorText ?? '', 60)}`;
    case 'approval-requested':
      return 'awaiting approval';
    case 'approval-answered':
      return entry.approval?.approved ? 'approved …' : `denied${entry.approval?.reason ? `: ${truncate(entry.approval.reason, 50)}` : ''}`;
    case 'output-available':
      return summarizeOutput(entry.output);
    case 'output-error':
      return `error: ${truncate(entry.errorText ?? '', 60)}`;
    case 'output-denied':
      return `denied${entry.approval?.reason ? `: ${truncate(entry.approval.reason, 50)}` : ''}`;
  }
}

export function formatToolCall(entry: ToolCallEntry): string {
  const input = entry.input === undefined ? '' : ` ${truncate(json(entry.input), 60)}`;
  return `⚙ ${entry.toolName}${input} → ${outcome(entry)}`;
}

export function formatAsyncSettled(entry: AsyncSettledEntry): string {
  const detail = entry.error !== undefined ? `: ${truncate(typeof entry.error === 'string' ? entry.error : json(entry.error), 60)}` : entry.response !== undefined ? ` → ${summarizeOutput(entry.response)}` : '';
  return `⏱ ${entry.toolName ?? 'async tool'} ${entry.status ?? 'settled'}${detail}`;
}

/** The question asked for one approval request. */
export function formatApprovalQuestion(request: ApprovalRequest): string {
  return `Run ${request.toolName} ${truncate(json(request.input), 80)}?`;
}
