import { type Context, type Link, ROOT_CONTEXT, type Span, type SpanContext, trace, TraceFlags } from '@opentelemetry/api';
import { tracingState } from './tracing-state.js';

/**
 * W3C `traceparent` values: how a span's context is stored with the work it starts (a dispatch
 * group, a status row), so the process that picks the work up, perhaps another replica, can
 * link to it or continue its trace.
 */
const pattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The `traceparent` of a span, or undefined when there is none (tracing off). */
export function traceparentOf(span: Span | undefined): string | undefined {
  const spanContext = span?.spanContext();
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
  return `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The `traceparent` of the active span, or undefined when tracing is off or nothing is active. */
export function activeTraceparent(): string | undefined {
  if (!tracingState()) return undefined;
  return traceparentOf(trace.getActiveSpan());
}

/** `{traceparent}` of the active span, to spread into a stored row; `{}` when there is none. */
export function traceparentField(): { traceparent?: string } {
  const traceparent = activeTraceparent();
  return traceparent ? { traceparent } : {};
}

/** The span context a `traceparent` names, or undefined when it is absent or malformed. */
export function spanContextOf(traceparent: string | undefined): SpanContext | undefined {
  const match = traceparent ? pattern.exec(traceparent) : null;
  if (!match) return undefined;
  const spanContext: SpanContext = { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16) & TraceFlags.SAMPLED, isRemote: true };
  return trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** Links to the span a stored `traceparent` names (none when it is absent). */
export function linksTo(traceparent: string | undefined): Link[] {
  const spanContext = spanContextOf(traceparent);
  return spanContext ? [{ context: spanContext }] : [];
}

/** A context whose parent is the span a stored `traceparent` names; the root context when there is none. */
export function contextOf(traceparent: string | undefined): Context {
  const spanContext = spanContextOf(traceparent);
  return spanContext ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT;
}

