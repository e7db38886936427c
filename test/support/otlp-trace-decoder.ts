import { readMessage } from './protobuf-reader.js';

/**
 * Decodes an OTLP `ExportTraceServiceRequest` (opentelemetry-proto,
 * `collector/trace/v1/trace_service.proto` and the `trace`, `resource` and `common` messages it
 * uses) from its protobuf encoding. The field numbers below are the official ones.
 */

export type AttributeValue = string | boolean | number | bigint | Uint8Array | AttributeValue[] | { [key: string]: AttributeValue } | undefined;
export type Attributes = Record<string, AttributeValue>;

export interface ReceivedLink {
  traceId: string;
  spanId: string;
  attributes: Attributes;
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Attributes;
  events: { name: string; attributes: Attributes }[];
  links: ReceivedLink[];
  /** StatusCode: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  /** The resource's attributes (`service.name`, `service.instance.id`...). */
  resource: Attributes;
  scope: { name: string; version: string };
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** ExportTraceServiceRequest: 1 resource_spans (repeated ResourceSpans). */
export function decodeExportTraceServiceRequest(bytes: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  readMessage(bytes, (field, reader) => {
    if (field !== 1) return false;
    spans.push(...decodeResourceSpans(reader.lengthDelimited()));
    return true;
  });
  return spans;
}

/** ResourceSpans: 1 resource (Resource), 2 scope_spans (repeated ScopeSpans), 3 schema_url. */
function decodeResourceSpans(bytes: Uint8Array): ReceivedSpan[] {
  let resource: Attributes = {};
  const scopeSpans: Uint8Array[] = [];
  readMessage(bytes, (field, reader) => {
    if (field === 1) resource = decodeResource(reader.lengthDelimited());
    else if (field === 2) scopeSpans.push(reader.lengthDelimited());
    else return false;
    return true;
  });
  return scopeSpans.flatMap((scoped) => decodeScopeSpans(scoped, resource));
}

/** Resource: 1 attributes (repeated KeyValue), 2 dropped_attributes_count. */
function decodeResource(bytes: Uint8Array): Attributes {
  const attributes: Attributes = {};
  readMessage(bytes, (field, reader) => {
    if (field !== 1) return false;
    addKeyValue(attributes, reader.lengthDelimited());
    return true;
  });
  return attributes;
}

/** ScopeSpans: 1 scope (InstrumentationScope: 1 name, 2 version), 2 spans (repeated Span), 3 schema_url. */
function decodeScopeSpans(bytes: Uint8Array, resource: Attributes): ReceivedSpan[] {
  const scope = { name: '', version: '' };
  const spans: Uint8Array[] = [];
  readMessage(bytes, (field, reader) => {
    if (field === 1) {
      readMessage(reader.lengthDelimited(), (scopeField, scopeReader) => {
        if (scopeField === 1) scope.name = scopeReader.string();
        else if (scopeField === 2) scope.version = scopeReader.string();
        else return false;
        return true;
      });
    } else if (field === 2) spans.push(reader.lengthDelimited());
    else return false;
    return true;
  });
  return spans.map((span) => decodeSpan(span, resource, scope));
}

/**
 * Span: 1 trace_id, 2 span_id, 3 trace_state, 4 parent_span_id, 5 name, 6 kind,
 * 7 start_time_unix_nano (fixed64), 8 end_time_unix_nano (fixed64), 9 attributes, 11 events,
 * 13 links, 15 status, 16 flags (fixed32).
 */
function decodeSpan(bytes: Uint8Array, resource: Attributes, scope: { name: string; version: string }): ReceivedSpan {
  const span: ReceivedSpan = {
    traceId: '',
    spanId: '',
    parentSpanId: '',
    name: '',
    kind: 0,
    startTimeUnixNano: 0n,
    endTimeUnixNano: 0n,
    attributes: {},
    events: [],
    links: [],
    status: { code: 0, message: '' },
    resource,
    scope,
  };
  readMessage(bytes, (field, reader) => {
    switch (field) {
      case 1:
        span.traceId = hex(reader.lengthDelimited());
        return true;
      case 2:
        span.spanId = hex(reader.lengthDelimited());
        return true;
      case 4:
        span.parentSpanId = hex(reader.lengthDelimited());
        return true;
      case 5:
        span.name = reader.string();
        return true;
      case 6:
        span.kind = Number(reader.varint());
        return true;
      case 7:
        span.startTimeUnixNano = reader.fixed64();
        return true;
      case 8:
        span.endTimeUnixNano = reader.fixed64();
        return true;
      case 9:
        addKeyValue(span.attributes, reader.lengthDelimited());
        return true;
      case 11:
        span.events.push(decodeEvent(reader.lengthDelimited()));
        return true;
      case 13:
        span.links.push(decodeLink(reader.lengthDelimited()));
        return true;
      case 15:
        span.status = decodeStatus(reader.lengthDelimited());
        return true;
      default:
        return false;
    }
  });
  return span;
}

/** Span.Event: 1 time_unix_nano, 2 name, 3 attributes. */
function decodeEvent(bytes: Uint8Array): { name: string; attributes: Attributes } {
  const event = { name: '', attributes: {} as Attributes };
  readMessage(bytes, (field, reader) => {
    if (field === 2) event.name = reader.string();
    else if (field === 3) addKeyValue(event.attributes, reader.lengthDelimited());
    else return false;
    return true;
  });
  return event;
}

/** Span.Link: 1 trace_id, 2 span_id, 3 trace_state, 4 attributes, 6 flags. */
function decodeLink(bytes: Uint8Array): ReceivedLink {
  const link: ReceivedLink = { traceId: '', spanId: '', attributes: {} };
  readMessage(bytes, (field, reader) => {
    if (field === 1) link.traceId = hex(reader.lengthDelimited());
    else if (field === 2) link.spanId = hex(reader.lengthDelimited());
    else if (field === 4) addKeyValue(link.attributes, reader.lengthDelimited());
    else return false;
    return true;
  });
  return link;
}

/** Status: 2 message, 3 code. */
function decodeStatus(bytes: Uint8Array): { code: number; message: string } {
  const status = { code: 0, message: '' };
  readMessage(bytes, (field, reader) => {
    if (field === 2) status.message = reader.string();
    else if (field === 3) status.code = Number(reader.varint());
    else return false;
    return true;
  });
  return status;
}

/** KeyValue: 1 key, 2 value (AnyValue). */
function addKeyValue(target: Attributes, bytes: Uint8Array): void {
  let key = '';
  let value: AttributeValue;
  readMessage(bytes, (field, reader) => {
    if (field === 1) key = reader.string();
    else if (field === 2) value = decodeAnyValue(reader.lengthDelimited());
    else return false;
    return true;
  });
  target[key] = value;
}

/**
 * AnyValue (a oneof): 1 string_value, 2 bool_value, 3 int_value (int64), 4 double_value,
 * 5 array_value (ArrayValue: 1 values), 6 kvlist_value (KeyValueList: 1 values), 7 bytes_value.
 */
function decodeAnyValue(bytes: Uint8Array): AttributeValue {
  let value: AttributeValue;
  readMessage(bytes, (field, reader) => {
    switch (field) {
      case 1:
        value = reader.string();
        return true;
      case 2:
        value = reader.varint() !== 0n;
        return true;
      case 3: {
        const integer = BigInt.asIntN(64, reader.varint());
        value = integer >= BigInt(Number.MIN_SAFE_INTEGER) && integer <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(integer) : integer;
        return true;
      }
      case 4:
        value = reader.double();
        return true;
      case 5: {
        const values: AttributeValue[] = [];
        readMessage(reader.lengthDelimited(), (arrayField, arrayReader) => {
          if (arrayField !== 1) return false;
          values.push(decodeAnyValue(arrayReader.lengthDelimited()));
          return true;
        });
        value = values;
        return true;
      }
      case 6: {
        const entries: Attributes = {};
        readMessage(reader.lengthDelimited(), (listField, listReader) => {
          if (listField !== 1) return false;
          addKeyValue(entries, listReader.lengthDelimited());
          return true;
        });
        value = entries;
        return true;
      }
      case 7:
        value = reader.lengthDelimited();
        return true;
      default:
        return false;
    }
  });
  return value;
}
