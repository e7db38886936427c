import { otlpProtocolFromEnvironment, type OtlpHttpProtocol } from './otlp-protocol.js';
import { resourceAttributesFromEnvironment } from './resource-attributes.js';

/** How the service exports traces, read from the standard OpenTelemetry variables. */
export interface TracingSettings {
  /** Where spans go: the OTLP/HTTP traces URL. */
  tracesUrl: string;
  /** The encoding: `http/protobuf` (default) or `http/json` (`OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL`). */
  protocol: OtlpHttpProtocol;
  /** Set when the protocol asked for (`grpc`) is not the one used; logged at start. */
  protocolWarning?: string;
  /**
   * `service.name` of the spans: `OTEL_SERVICE_NAME`, else the `service.name` of
   * `OTEL_RESOURCE_ATTRIBUTES`, else `harness`.
   */
  serviceName: string;
  /** `OTEL_RESOURCE_ATTRIBUTES`, parsed (the resource's other attributes). */
  resourceAttributes: Record<string, string>;
  /** Prompts, messages and tool inputs/outputs in spans (`HARNESS_OTEL_RECORD_CONTENT=true`; off by default). */
  recordContent: boolean;
  /** The batch span processor's standard settings (`OTEL_BSP_*`), where set. */
  batch: BatchSettings;
}

export interface BatchSettings {
  scheduledDelayMillis?: number;
  maxQueueSize?: number;
  maxExportBatchSize?: number;
  exportTimeoutMillis?: number;
}

type Environment = Record<string, string | undefined>;

/**
 * The OTLP/HTTP traces URL the environment names, by the exporter's own rules: the
 * traces-specific `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else
 * `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. Undefined when neither is set.
 */
export function tracesUrlFromEnvironment(env: Environment): string | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!base) return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Tracing is on when an OTLP endpoint is set, and off otherwise; the standard switches
 * `OTEL_SDK_DISABLED=true` and `OTEL_TRACES_EXPORTER=none` turn it off even then.
 */
export function tracingSettingsFromEnvironment(env: Environment = process.env): TracingSettings | undefined {
  const tracesUrl = tracesUrlFromEnvironment(env);
  if (!tracesUrl) return undefined;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return undefined;
  const resourceAttributes = resourceAttributesFromEnvironment(env);
  const { protocol, warning } = otlpProtocolFromEnvironment(env, printableUrl(tracesUrl));
  return {
    tracesUrl,
    protocol,
    ...(warning ? { protocolWarning: warning } : {}),
    serviceName: env.OTEL_SERVICE_NAME?.trim() || resourceAttributes['service.name'] || 'harness',
    resourceAttributes,
    recordContent: env.HARNESS_OTEL_RECORD_CONTENT?.trim().toLowerCase() === 'true',
    batch: batchSettingsFromEnvironment(env),
  };
}

/** The standard batch-processor variables; a value that is not a positive integer is ignored (the SDK's default stays). */
function batchSettingsFromEnvironment(env: Environment): BatchSettings {
  const settings: BatchSettings = {};
  const read = (name: string): number | undefined => {
    const value = Number(env[name]?.trim());
    return Number.isInteger(value) && value > 0 ? value : undefined;
  };
  const scheduledDelayMillis = read('OTEL_BSP_SCHEDULE_DELAY');
  const maxQueueSize = read('OTEL_BSP_MAX_QUEUE_SIZE');
  const maxExportBatchSize = read('OTEL_BSP_MAX_EXPORT_BATCH_SIZE');
  const exportTimeoutMillis = read('OTEL_BSP_EXPORT_TIMEOUT');
  if (scheduledDelayMillis !== undefined) settings.scheduledDelayMillis = scheduledDelayMillis;
  if (maxQueueSize !== undefined) settings.maxQueueSize = maxQueueSize;
  if (maxExportBatchSize !== undefined) settings.maxExportBatchSize = Math.min(maxExportBatchSize, maxQueueSize ?? 2048);
  if (exportTimeoutMillis !== undefined) settings.exportTimeoutMillis = exportTimeoutMillis;
  return settings;
}

/** A URL fit for a log line or a terminal: no user, password or query (an endpoint may carry credentials). */
export function printableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(not a valid URL)';
  }
}
