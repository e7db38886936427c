import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { setTracingState, type TracingState } from '../core/telemetry/tracing-state.js';
import { OtlpJsonTraceExporter } from './otlp-json-trace-exporter.js';
import type { TracingSettings } from './tracing-settings.js';

export interface RunningTracing {
  /** Where spans go. */
  tracesUrl: string;
  /** Export what is buffered, stop exporting, and turn tracing off (once its last user stops). */
  shutdown(): Promise<void>;
}

export interface StartTracingOptions {
  settings: TracingSettings;
  /** `service.instance.id`: which replica made the spans. */
  instanceId: string;
  /** The exporter (default: OTLP/HTTP in the settings' encoding, configured by the standard `OTEL_EXPORTER_OTLP_*` variables). */
  exporter?: SpanExporter;
}

/** Tracings started in this process and not shut down yet; the newest one is the core's. */
const running: { state: TracingState }[] = [];
let contextManager: AsyncLocalStorageContextManager | undefined;

/**
 * Starts exporting spans: a tracer provider whose batch processor sends them over OTLP/HTTP
 * (protobuf, or JSON with `http/json`), the async-local-storage context manager (so a span started in a request is the
 * parent of what that request awaits), and the core's tracing state. Registered globally, as
 * the OpenTelemetry API expects, so the AI SDK's spans use the same context.
 */
export function startTracing(options: StartTracingOptions): RunningTracing {
  const { settings } = options;
  const exporter = options.exporter ?? (settings.protocol === 'http/json' ? new OtlpJsonTraceExporter({ url: settings.tracesUrl }) : new OTLPTraceExporter({ url: settings.tracesUrl }));
  // The operator's OTEL_RESOURCE_ATTRIBUTES stand; `service.name` is the settings' (which
  // already prefers OTEL_SERVICE_NAME, then the attributes' own), and the replica is the
  // instance unless the attributes name one.
  const { resourceAttributes } = settings;
  const resource = defaultResource().merge(
    resourceFromAttributes({ ...resourceAttributes, 'service.name': settings.serviceName, 'service.instance.id': resourceAttributes['service.instance.id'] ?? options.instanceId }),
  );
  const provider = new TracerProvider({ resource, spanProcessors: [new BatchSpanProcessor({ exporter, ...settings.batch })] });
  if (!contextManager) {
    contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);
    trace.setGlobalTracerProvider(provider);
  }
  const entry = { state: { tracer: provider.getTracer('harness'), recordContent: settings.recordContent } };
  running.push(entry);
  setTracingState(entry.state);
  let stopping: Promise<void> | undefined;
  return {
    tracesUrl: settings.tracesUrl,
    shutdown: () => {
      stopping ??= (async () => {
        running.splice(running.indexOf(entry), 1);
        setTracingState(running.at(-1)?.state);
        // Shutting down flushes the batch first: spans of the last requests are not lost.
        await provider.shutdown();
        if (running.length === 0 && contextManager) {
          trace.disable();
          context.disable();
          contextManager = undefined;
        }
      })();
      return stopping;
    },
  };
}
