import type { Span } from '@opentelemetry/api';
import { spanAttribute, spanName } from '../telemetry/span-attributes.js';
import { endSpan, inSpan, startSpan } from '../telemetry/spans.js';

/**
 * The wait for a same-invocation async call, a child of its tool call's span: from the call
 * to its settlement (the turn waits for it after the model pass). The work the call does runs
 * inside it.
 */
export function startAsyncWaitSpan(toolName: string, resultId: string): Span | undefined {
  return startSpan(spanName.asyncWait, () => ({ [spanAttribute.toolName]: toolName, [spanAttribute.asyncResultId]: resultId }));
}

export function endAsyncWaitSpan(span: Span | undefined, status: string): void {
  endSpan(span, { [spanAttribute.asyncStatus]: status });
}

/** A completion of an external-dispatch call: which row, how it ended, and whether it claimed the continuation. */
export function traceCompletion<T extends { continuation: string }>(accountId: string, resultId: string, outcome: { status: string }, complete: () => Promise<T>): Promise<T> {
  return inSpan(
    spanName.completion,
    () => ({ [spanAttribute.accountId]: accountId, [spanAttribute.asyncResultId]: resultId, [spanAttribute.asyncStatus]: outcome.status }),
    async (span) => {
      const answer = await complete();
      span?.setAttribute(spanAttribute.continuation, answer.continuation);
      return answer;
    },
  );
}
