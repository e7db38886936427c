import { OTLPExporterBase, type OTLPExporterNodeConfigBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { JsonTraceSerializer, TraceExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/** The exporter's component type in the OpenTelemetry semantic conventions (self-observability metrics, unused here). */
const componentType = 'otlp_http_json_span_exporter';

/**
 * OTLP/HTTP with the JSON encoding (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`): what
 * `@opentelemetry/exporter-trace-otlp-http` is, built from the same two packages the installed
 * protobuf exporter is built from (its HTTP transport, retries, headers, timeout and
 * compression, and the transformer's JSON serializer), so no other exporter is installed.
 */
export class OtlpJsonTraceExporter extends OTLPExporterBase<ReadableSpan[]> implements SpanExporter {
  constructor(config: OTLPExporterNodeConfigBase = {}) {
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions(config, 'TRACES', 'v1/traces', { 'Content-Type': 'application/json' }),
        JsonTraceSerializer,
        componentType,
        TraceExporterMetricsHelper,
        undefined,
      ),
    );
  }
}
