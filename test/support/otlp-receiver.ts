import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeJsonExportTraceServiceRequest } from './otlp-json-trace-decoder.js';
import { decodeExportTraceServiceRequest, type AttributeValue, type ReceivedSpan } from './otlp-trace-decoder.js';

export type { ReceivedSpan } from './otlp-trace-decoder.js';

export interface OtlpReceiver {
  /** The base URL for `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporter adds `/v1/traces`). */
  endpoint: string;
  /** The full URL export requests are taken at (`<endpoint>/v1/traces`, or the receiver's own path). */
  tracesUrl: string;
  /** The encoding of each export request taken, in arrival order: `protobuf` or `json`. */
  encodings(): ('protobuf' | 'json')[];
  /** Every span received so far, in arrival order. */
  spans(): ReceivedSpan[];
  /** Resolves with the spans once `ready(spans)` holds; rejects after `timeoutMs` with what arrived. */
  waitFor(ready: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  /** Export requests refused (wrong path, content type or body), with the reason. */
  refused(): string[];
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

export interface OtlpReceiverOptions {
  /** The path export requests are taken at (default `/v1/traces`); any other path is refused. */
  path?: string;
}

/**
 * An OTLP/HTTP trace receiver on loopback, as a collector would be: `POST /v1/traces` with
 * `application/x-protobuf` (the body an `ExportTraceServiceRequest` decoded by the official
 * field numbers) or `application/json` (its JSON mapping), answered with an empty
 * `ExportTraceServiceResponse` (full success) in the same encoding.
 */
export async function startOtlpReceiver(options: OtlpReceiverOptions = {}): Promise<OtlpReceiver> {
  const path = options.path ?? '/v1/traces';
  const received: ReceivedSpan[] = [];
  const encodings: ('protobuf' | 'json')[] = [];
  const refusals: string[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((request, reply) => {
    void (async () => {
      const body = await readBody(request);
      const contentType = request.headers['content-type'] ?? '';
      const encoding = contentType.startsWith('application/x-protobuf') ? 'protobuf' : contentType.startsWith('application/json') ? 'json' : undefined;
      if (request.method !== 'POST' || request.url !== path || !encoding) {
        refusals.push(`${request.method} ${request.url} ${contentType}`);
        reply.writeHead(request.url === path ? 415 : 404).end();
        return;
      }
      try {
        received.push(...(encoding === 'json' ? decodeJsonExportTraceServiceRequest(body) : decodeExportTraceServiceRequest(body)));
        encodings.push(encoding);
      } catch (error) {
        refusals.push(`undecodable ${encoding} body: ${(error as Error).message}`);
        reply.writeHead(400).end();
        return;
      }
      if (encoding === 'json') reply.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else reply.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      for (const wake of waiters) wake();
    })().catch((error: unknown) => {
      refusals.push(`receiver error: ${(error as Error).message}`);
      if (!reply.headersSent) reply.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    tracesUrl: `http://127.0.0.1:${port}${path}`,
    encodings: () => [...encodings],
    spans: () => [...received],
    refused: () => [...refusals],
    waitFor: (ready, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          if (!ready(received)) return false;
          cleanup();
          resolve([...received]);
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`the OTLP receiver did not get the expected spans within ${timeoutMs} ms; it has: ${received.map((span) => span.name).join(', ') || 'none'}`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearTimeout(timer);
          waiters.delete(wake);
        };
        const wake = (): void => {
          check();
        };
        if (!check()) waiters.add(wake);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every attribute value of a span (its links' and events' too), flattened to strings: what a secret scan searches. */
export function attributeStrings(span: ReceivedSpan): string[] {
  const values: string[] = [];
  const visit = (value: AttributeValue): void => {
    if (value === undefined) return;
    if (Array.isArray(value)) value.forEach(visit);
    else if (value instanceof Uint8Array) values.push(Buffer.from(value).toString('utf8'));
    else if (typeof value === 'object') Object.values(value).forEach(visit);
    else values.push(String(value));
  };
  for (const attributes of [span.attributes, ...span.events.map((event) => event.attributes), ...span.links.map((link) => link.attributes)]) Object.values(attributes).forEach(visit);
  values.push(span.name, span.status.message, ...span.events.map((event) => event.name));
  return values;
}
