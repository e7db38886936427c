import { type Attributes, type Context, context, type Link, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracingState } from './tracing-state.js';

export interface StartSpanOptions {
  kind?: SpanKind;
  links?: Link[];
  /** The parent; default: the active context. */
  parent?: Context;
  /** Start a new trace (background work that is its own operation, linked to its cause). */
  root?: boolean;
  /** When the span began, for a wait measured after the fact. */
  startTime?: Date;
}

/**
 * Starts a span, or returns undefined at once when tracing is off: the attributes are a
 * function so that nothing is built when no span is made.
 */
export function startSpan(name: string, attributes?: () => Attributes, options: StartSpanOptions = {}): Span | undefined {
  const state = tracingState();
  if (!state) return undefined;
  const parent = options.root ? ROOT_CONTEXT : (options.parent ?? context.active());
  return state.tracer.startSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      ...(attributes ? { attributes: attributes() } : {}),
      ...(options.links && options.links.length > 0 ? { links: options.links } : {}),
      ...(options.startTime ? { startTime: options.startTime } : {}),
    },
    parent,
  );
}

/** Runs `work` with `span` as the active span, so what it starts becomes the span's children. */
export function runInSpan<T>(span: Span | undefined, work: () => T): T {
  if (!span) return work();
  return context.with(trace.setSpan(context.active(), span), work);
}

/** Ends a span with these attributes (nothing when there is no span). */
export function endSpan(span: Span | undefined, attributes?: Attributes): void {
  if (!span) return;
  if (attributes) span.setAttributes(attributes);
  span.end();
}

/**
 * Marks a span failed and ends it. The status carries the error's kind (its stable code, or
 * its class name), never its message: a message may quote a tool's output or a user's input.
 * With content recording on, the message is kept too.
 */
export function failSpan(span: Span | undefined, error: unknown): void {
  if (!span) return;
  const kind = errorKind(error);
  span.setAttribute('error.type', kind);
  const message = tracingState()?.recordContent && error instanceof Error ? `${kind}: ${error.message}` : kind;
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
}

/** Runs `work` inside a new span that ends when it does (failed when it throws). */
export async function inSpan<T>(name: string, attributes: (() => Attributes) | undefined, work: (span: Span | undefined) => Promise<T>, options?: StartSpanOptions): Promise<T> {
  const span = startSpan(name, attributes, options);
  if (!span) return work(undefined);
  let result: T;
  try {
    result = await runInSpan(span, () => work(span));
  } catch (error) {
    failSpan(span, error);
    throw error;
  }
  span.end();
  return result;
}

/** Adds attributes to the active span, if a span is recording. */
export function annotateActiveSpan(attributes: () => Attributes): void {
  if (!tracingState()) return;
  const span = trace.getActiveSpan();
  if (span?.isRecording()) span.setAttributes(attributes());
}

function errorKind(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? code : error.name;
  }
  return typeof error;
}
