import { trace } from '@opentelemetry/api';
import type { AsyncRequestRecord } from './status-row.js';
import type { DispatchGroup } from '../async-tools/async-tool-result.js';
import { spanAttribute, spanName } from '../telemetry/span-attributes.js';
import { inSpan } from '../telemetry/spans.js';
import { contextOf, spanContextOf } from '../telemetry/traceparent.js';
import { tracingState } from '../telemetry/tracing-state.js';

/**
 * A queued `/async` request (a cron run among them) as it runs on the background worker: a
 * child of the span that queued it (the HTTP request, the cron fire), whose `traceparent` the
 * status row keeps, so the request and its run are one trace even across replicas.
 */
export function traceAsyncRequest(request: AsyncRequestRecord, run: () => Promise<void>): Promise<void> {
  return inSpan(
    spanName.asyncRequest,
    () => ({ [spanAttribute.eventId]: request.eventId, [spanAttribute.accountId]: request.accountId, [spanAttribute.agentId]: request.agentId, [spanAttribute.transport]: request.transport }),
    run,
    { parent: contextOf(request.traceparent) },
  );
}

/**
 * A continuation after async tools: a trace of its own (it runs when the last completion
 * arrives, perhaps days later), linked to the turn that made the calls by `linkContinuationToTurn`.
 */
export function traceContinuation(groupId: string, run: () => Promise<void>): Promise<void> {
  return inSpan(spanName.continuation, () => ({ [spanAttribute.asyncGroupId]: groupId }), run, { root: true });
}

/** Called inside the continuation's span once its group is read: the link to the original turn, and the ids. */
export function linkContinuationToTurn(group: DispatchGroup): void {
  if (!tracingState()) return;
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.setAttributes({
    [spanAttribute.accountId]: group.accountId,
    [spanAttribute.agentId]: group.agentId,
    [spanAttribute.eventId]: group.delivery.eventId,
    [spanAttribute.transport]: group.delivery.transport,
  });
  const turn = spanContextOf(group.traceparent);
  if (turn) span.addLink({ context: turn, attributes: { 'harness.link': 'continued-turn' } });
}
