import type { Span } from '@opentelemetry/api';
import { spanAttribute, spanName } from '../telemetry/span-attributes.js';
import { endSpan, failSpan, startSpan } from '../telemetry/spans.js';

/** The span of one tool call (a child of the AI SDK's `ai.toolCall`): the tool's name and call id. */
export function startToolSpan(toolName: string, toolCallId: string): Span | undefined {
  return startSpan(spanName.toolCall, () => ({ [spanAttribute.toolName]: toolName, [spanAttribute.toolCallId]: toolCallId }));
}

/**
 * Ends a tool call's span with its outcome: `completed`, or for an async tool the receipt the
 * model got (`processing` with its result id, or `failed` when the dispatch failed). The
 * output itself is never recorded.
 */
export function endToolSpan(span: Span | undefined, output: unknown): void {
  if (!span) return;
  const receipt = asyncReceipt(output);
  endSpan(span, receipt ? { [spanAttribute.toolOutcome]: receipt.status, [spanAttribute.asyncResultId]: receipt.resultId } : { [spanAttribute.toolOutcome]: 'completed' });
}

function asyncReceipt(output: unknown): { resultId: string; status: string } | undefined {
  if (typeof output !== 'object' || output === null) return undefined;
  const { resultId, status } = output as { resultId?: unknown; status?: unknown };
  return typeof resultId === 'string' && typeof status === 'string' && resultId.startsWith('res_') ? { resultId, status } : undefined;
}

/** Ends a tool call's span as failed (the error's kind, not its message). */
export function failToolSpan(span: Span | undefined, error: unknown): void {
  span?.setAttribute(spanAttribute.toolOutcome, 'failed');
  failSpan(span, error);
}
