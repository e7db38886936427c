import type { TelemetrySettings } from 'ai';
import { tracingState } from './tracing-state.js';

const off: { experimental_telemetry?: TelemetrySettings } = {};

/**
 * The AI SDK's telemetry settings for one model pass, to spread into `streamText`: its spans
 * (`ai.streamText`, `ai.streamText.doStream`, `ai.toolCall`) are made with the service's
 * tracer, so they are children of the turn's span. Inputs (the prompt, the messages, tool
 * arguments) and outputs (the text, tool results) are recorded only with content recording
 * on. Off: nothing, and the SDK uses its no-op tracer.
 */
export function modelTelemetry(ids: { accountId: string; agentId: string; turnId: string }): { experimental_telemetry?: TelemetrySettings } {
  const state = tracingState();
  if (!state) return off;
  return {
    experimental_telemetry: {
      isEnabled: true,
      recordInputs: state.recordContent,
      recordOutputs: state.recordContent,
      tracer: state.tracer,
      functionId: 'harness.turn',
      metadata: { accountId: ids.accountId, agentId: ids.agentId, turnId: ids.turnId },
    },
  };
}
