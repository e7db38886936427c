import { LegacyOpenTelemetry } from '@ai-sdk/otel';
import type { Tracer } from '@opentelemetry/api';
import type { TelemetryOptions } from 'ai';
import { tracingState } from './tracing-state.js';

/** What `modelTelemetry` gives `streamText`: its telemetry settings and the ids they record. */
export interface ModelTelemetrySettings {
  telemetry?: TelemetryOptions;
  runtimeContext?: { accountId: string; agentId: string; turnId: string };
}

const off: ModelTelemetrySettings = {};

/** The SDK's OpenTelemetry integration for the service's tracer, made once per tracer. */
let integration: { tracer: Tracer; telemetry: LegacyOpenTelemetry } | undefined;

function integrationFor(tracer: Tracer): LegacyOpenTelemetry {
  if (integration?.tracer !== tracer) integration = { tracer, telemetry: new LegacyOpenTelemetry({ tracer }) };
  return integration.telemetry;
}

/**
 * The AI SDK's telemetry settings for one model pass, to spread into `streamText`: its spans
 * (`ai.streamText`, `ai.streamText.doStream`, `ai.toolCall`) are made with the service's
 * tracer, so they are children of the turn's span. AI SDK 7 moved OpenTelemetry out of `ai`
 * into `@ai-sdk/otel`; its `LegacyOpenTelemetry` integration makes the spans AI SDK 6 made
 * (same names and `ai.*` attributes). It is given per call rather than registered for the
 * process, so a process without tracing has none and the SDK emits nothing. Inputs (the
 * prompt, the messages, tool arguments) and outputs (the text, tool results) are recorded
 * only with content recording on. The account, agent and turn ids go in as the call's
 * runtime context (`ai.settings.context.*`; AI SDK 6 named them `ai.telemetry.metadata.*`).
 */
export function modelTelemetry(ids: { accountId: string; agentId: string; turnId: string }): ModelTelemetrySettings {
  const state = tracingState();
  if (!state) return off;
  return {
    telemetry: {
      isEnabled: true,
      recordInputs: state.recordContent,
      recordOutputs: state.recordContent,
      functionId: 'harness.turn',
      includeRuntimeContext: { accountId: true, agentId: true, turnId: true },
      integrations: integrationFor(state.tracer),
    },
    runtimeContext: { accountId: ids.accountId, agentId: ids.agentId, turnId: ids.turnId },
  };
}
