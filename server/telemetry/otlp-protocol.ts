type Environment = Record<string, string | undefined>;

/** The OTLP encodings the service exports spans in: both over HTTP. */
export type OtlpHttpProtocol = 'http/protobuf' | 'http/json';

export interface OtlpProtocolChoice {
  protocol: OtlpHttpProtocol;
  /** Why the protocol asked for is not the one used (`grpc`, or a value the specification does not know), for a warning at start. */
  warning?: string;
}

/**
 * The protocol of the traces exporter, by the OpenTelemetry variables:
 * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, else
 * `http/protobuf` (the specification's default). `grpc` is not supported (no gRPC client is
 * installed): the choice is then `http/protobuf`, with a warning that says so.
 */
export function otlpProtocolFromEnvironment(env: Environment, printableTracesUrl: string): OtlpProtocolChoice {
  const tracesSpecific = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim();
  const variable = tracesSpecific ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const requested = (tracesSpecific || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() || 'http/protobuf').toLowerCase();
  if (requested === 'http/protobuf' || requested === 'http/json') return { protocol: requested };
  const reason =
    requested === 'grpc'
      ? `${variable}=grpc is not supported: harness exports traces over OTLP/HTTP only`
      : `${variable}=${requested} is not an OTLP protocol (grpc, http/protobuf or http/json)`;
  return { protocol: 'http/protobuf', warning: `${reason}; exporting over http/protobuf to ${printableTracesUrl} instead (a collector's OTLP/HTTP port is usually 4318)` };
}
