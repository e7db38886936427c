import type { AttributeValue, Attributes, ReceivedSpan } from './otlp-trace-decoder.js';

/**
 * Decodes an OTLP `ExportTraceServiceRequest` from its JSON encoding (OTLP/HTTP with
 * `application/json`, the OTLP specification's JSON mapping of the protobuf messages): ids as
 * hex strings, 64-bit integers and times as decimal strings or numbers, enums as numbers,
 * bytes as base64. Gives the same `ReceivedSpan`s as the protobuf decoder.
 */

interface JsonKeyValue {
  key: string;
  value?: JsonAnyValue;
}

interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
  kvlistValue?: { values?: JsonKeyValue[] };
  bytesValue?: string;
}

interface JsonSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
  attributes?: JsonKeyValue[];
  events?: { name?: string; attributes?: JsonKeyValue[] }[];
  links?: { traceId?: string; spanId?: string; attributes?: JsonKeyValue[] }[];
  status?: { code?: number; message?: string };
}

interface JsonRequest {
  resourceSpans?: {
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: { scope?: { name?: string; version?: string }; spans?: JsonSpan[] }[];
  }[];
}

function anyValue(value: JsonAnyValue | undefined): AttributeValue {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) {
    const integer = BigInt(value.intValue);
    return integer >= BigInt(Number.MIN_SAFE_INTEGER) && integer <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(integer) : integer;
  }
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(anyValue);
  if (value.kvlistValue) return attributes(value.kvlistValue.values);
  if (value.bytesValue !== undefined) return new Uint8Array(Buffer.from(value.bytesValue, 'base64'));
  return undefined;
}

function attributes(list: JsonKeyValue[] | undefined): Attributes {
  const result: Attributes = {};
  for (const entry of list ?? []) result[entry.key] = anyValue(entry.value);
  return result;
}

export function decodeJsonExportTraceServiceRequest(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as JsonRequest;
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributes(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scoped) => {
      const scope = { name: scoped.scope?.name ?? '', version: scoped.scope?.version ?? '' };
      return (scoped.spans ?? []).map(
        (span): ReceivedSpan => ({
          traceId: span.traceId ?? '',
          spanId: span.spanId ?? '',
          parentSpanId: span.parentSpanId ?? '',
          name: span.name ?? '',
          kind: span.kind ?? 0,
          startTimeUnixNano: BigInt(span.startTimeUnixNano ?? 0),
          endTimeUnixNano: BigInt(span.endTimeUnixNano ?? 0),
          attributes: attributes(span.attributes),
          events: (span.events ?? []).map((event) => ({ name: event.name ?? '', attributes: attributes(event.attributes) })),
          links: (span.links ?? []).map((link) => ({ traceId: link.traceId ?? '', spanId: link.spanId ?? '', attributes: attributes(link.attributes) })),
          status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
          resource,
          scope,
        }),
      );
    });
  });
}
