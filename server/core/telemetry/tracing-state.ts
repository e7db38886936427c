import type { Tracer } from '@opentelemetry/api';

/** What the core needs to trace: set once by the process that exports spans, absent otherwise. */
export interface TracingState {
  /** The tracer every span of the service is made with (the exporting provider's). */
  tracer: Tracer;
  /**
   * Prompts, messages and tool inputs and outputs go into spans only when the operator turns
   * this on: they may hold anything a user or a tool wrote.
   */
  recordContent: boolean;
}

let current: TracingState | undefined;

/**
 * Turns tracing on for this process (or off, with `undefined`). Tracing is a process-wide
 * concern like the OpenTelemetry API itself; when it is off, every span helper of the core
 * returns at once without building a span, an attribute object or a closure.
 */
export function setTracingState(state: TracingState | undefined): void {
  current = state;
}

/** The tracing state, or undefined when spans are not exported. */
export function tracingState(): TracingState | undefined {
  return current;
}
