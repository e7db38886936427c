import { STATUS_CODES } from 'node:http';
import type { Readable } from 'node:stream';
import { type Dispatcher, fetch as undiciFetch, request } from 'undici';

/** Statuses whose responses have no body (a `Response` refuses one). */
const nullBodyStatuses = new Set([101, 204, 205, 304]);

function plainHeaders(headers: RequestInit['headers']): Record<string, string> {
  if (!headers) return {};
  if (headers instanceof Headers || Array.isArray(headers)) return Object.fromEntries(new Headers(headers));
  return Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

function responseHeaders(headers: Record<string, string | string[] | undefined>): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const item of value) result.append(name, item);
    else if (value !== undefined) result.append(name, value);
  }
  return result;
}

/** A web stream over a Node stream, pausing the socket while the reader is behind. */
function webStream(body: Readable): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      body.on('data', (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) body.pause();
      });
      body.once('end', () => controller.close());
      body.once('error', (error) => controller.error(error));
    },
    pull() {
      body.resume();
    },
    cancel(reason) {
      body.destroy(reason instanceof Error ? reason : undefined);
    },
  });
}

/**
 * The `fetch` the model provider is given: undici's `request` (the dispatcher API) behind the
 * `fetch` signature. Node's built-in `fetch` costs about 0.5 ms more per call (it tees the
 * request body and builds several web streams per request), which is a large part of a turn
 * against a fast model (docs/benchmarks.md). Requests it does not handle (a `Request` object,
 * a body that is not a string or bytes) go to the built-in `fetch`. A connection failure is a
 * `TypeError('fetch failed')` with the cause, as with `fetch`, so the AI SDK's error handling
 * and retries see what they expect.
 */
export const modelFetch: typeof fetch = createModelFetch();

/**
 * `modelFetch` through `dispatcher` (the outbound policy's checked connections), for both the
 * `request` path and the `fetch` fallback. Without one, undici's global dispatcher.
 */
export function createModelFetch(dispatcher?: Dispatcher): typeof fetch {
  const fallback: typeof fetch = dispatcher
    ? ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) => undiciFetch(input, { ...init, dispatcher })) as unknown as typeof fetch
    : (input, init) => fetch(input, init);
  return (input, init = {}) => fetchThroughRequest(input, init, fallback, dispatcher);
}

async function fetchThroughRequest(input: Parameters<typeof fetch>[0], init: RequestInit, fallback: typeof fetch, dispatcher: Dispatcher | undefined): Promise<Response> {
  const body = init.body ?? undefined;
  const simpleBody = body === undefined || typeof body === 'string' || body instanceof Uint8Array;
  if ((typeof input !== 'string' && !(input instanceof URL)) || !simpleBody) return fallback(input, init);
  init.signal?.throwIfAborted();
  let reply: Awaited<ReturnType<typeof request>>;
  try {
    reply = await request(input, {
      method: (init.method ?? 'GET') as 'GET',
      headers: plainHeaders(init.headers),
      body,
      ...(init.signal ? { signal: init.signal } : {}),
      ...(dispatcher ? { dispatcher } : {}),
    });
  } catch (error) {
    if (init.signal?.aborted) throw init.signal.reason;
    throw new TypeError('fetch failed', { cause: error });
  }
  const status = reply.statusCode;
  const headers = responseHeaders(reply.headers);
  const statusText = STATUS_CODES[status] ?? '';
  if (nullBodyStatuses.has(status)) {
    reply.body.resume();
    return new Response(null, { status, statusText, headers });
  }
  return new Response(webStream(reply.body), { status, statusText, headers });
}
