import { SpanStatusCode } from '@opentelemetry/api';
import { spanAttribute, spanName } from '../telemetry/span-attributes.js';
import { failSpan, inSpan, runInSpan, startSpan } from '../telemetry/spans.js';
import { tracingState } from '../telemetry/tracing-state.js';
import type { ApprovalRecord } from '../conversations/conversation.js';
import type { StartedTurn, TurnRequest } from './turn-types.js';

/** What a turn's span says about it. */
export type TurnSpanSubject = Pick<TurnRequest, 'accountId' | 'agentId' | 'conversationKey' | 'transport' | 'eventId'>;

/**
 * The span of a turn, from admission to its stored end: `start` runs inside it (so admission,
 * the model calls, the tool calls and the storage writes are its children) and the span ends
 * when the turn's result is known, with its status. Off: `start` alone.
 */
export async function traceTurn(kind: 'message' | 'continuation', request: TurnSpanSubject, start: () => Promise<StartedTurn>): Promise<StartedTurn> {
  const span = startSpan(spanName.turn, () => ({
    [spanAttribute.turnKind]: kind,
    [spanAttribute.accountId]: request.accountId,
    [spanAttribute.agentId]: request.agentId,
    [spanAttribute.transport]: request.transport,
    ...(request.eventId ? { [spanAttribute.eventId]: request.eventId } : {}),
    ...(tracingState()?.recordContent ? { [spanAttribute.conversationKey]: request.conversationKey } : {}),
  }));
  if (!span) return start();
  let started: StartedTurn;
  try {
    started = await runInSpan(span, start);
  } catch (error) {
    failSpan(span, error);
    throw error;
  }
  span.setAttributes({ [spanAttribute.turnId]: started.turnId, [spanAttribute.eventId]: started.eventId });
  void started.result.then(
    (result) => {
      span.setAttribute(spanAttribute.turnStatus, result.status);
      if (result.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, message: result.error?.kind ?? 'failed' });
      span.end();
    },
    (error: unknown) => failSpan(span, error),
  );
  return started;
}

/** The admission of a turn (account, size, transport, concurrency slot) as a child span. */
export function traceAdmission<T>(admit: () => Promise<T>): Promise<T> {
  return inSpan(spanName.admission, undefined, admit);
}

/**
 * How long a person took to answer each approval: a span from the request to the answer,
 * recorded in the turn that applies the answer.
 */
export function recordApprovalWaits(approvals: ApprovalRecord[], answeredIds: Iterable<string>): void {
  if (!tracingState()) return;
  for (const approvalId of answeredIds) {
    const approval = approvals.find((candidate) => candidate.approvalId === approvalId);
    if (!approval?.answeredAt) continue;
    const span = startSpan(
      spanName.approvalWait,
      () => ({
        [spanAttribute.toolName]: approval.toolName,
        [spanAttribute.toolCallId]: approval.toolCallId,
        [spanAttribute.approvalId]: approval.approvalId,
        [spanAttribute.approved]: approval.status === 'approved',
      }),
      { startTime: new Date(approval.requestedAt) },
    );
    span?.end(new Date(approval.answeredAt));
  }
}
