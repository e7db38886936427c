import { STATUS_CODES } from 'node:http';
import { type Dispatcher, fetch as undiciFetch, request } from 'undici';
import { ResponseTimedOutError, ResponseTooLargeError } from '../outbound/response-limit-errors.js';
import { answerStream } from './model-answer-stream.js';
import { defaultModelSettings, type ModelSettings } from './model-settings.js';

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

/** What one model call may read and how long it may take. */
interface ResponseLimits {
  maxResponseBytes: number;
  maxResponseMs: number;
  maxEventBytes: number;
}

const answer = "the model's answer";

/** The fallback's body counted the same way (a web stream layer, but only on the rare fallback path). */
function countedBody(response: Response, maxBytes: number, settled: () => void): Response {
  if (!response.body) {
    settled();
    return response;
  }
  let received = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      received += chunk.byteLength;
      if (received > maxBytes) controller.error(new ResponseTooLargeError(answer, maxBytes));
      else controller.enqueue(chunk);
    },
    flush: settled,
  });
  return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * The `fetch` the model provider is given: undici's `request` (the dispatcher API) behind the
 * `fetch` signature. Node's built-in `fetch` costs about 0.5 ms more per call (it tees the
 * request body and builds several web streams per request), which is a large part of a turn
 * against a fast model (docs/benchmarks.md). Requests it does not handle (a `Request` object,
 * a body that is not a string or bytes) go to the built-in `fetch`. A connection failure is a
 * `TypeError('fetch failed')` with the cause, as with `fetch`, so the AI SDK's error handling
 * and retries see what they expect. Each call reads at most `maxResponseBytes` and lasts at
 * most `maxResponseMs`, and a server-sent event at most `maxEventBytes` (default limits:
 * `defaultModelSettings`); a large read is handed to the AI SDK in slices (`answerStream`).
 */
export const modelFetch: typeof fetch = createModelFetch();

/**
 * `modelFetch` through `dispatcher` (the outbound policy's checked connections for `model`), for
 * both the `request` path and the `fetch` fallback, with the operator's limits. Without a
 * dispatcher, undici's global dispatcher.
 */
export function createModelFetch(options: { dispatcher?: Dispatcher | undefined } & Partial<ModelSettings> = {}): typeof fetch {
  const { dispatcher } = options;
  const limits: ResponseLimits = {
    maxResponseBytes: options.maxResponseBytes ?? defaultModelSettings.maxResponseBytes,
    maxResponseMs: options.maxResponseMs ?? defaultModelSettings.maxResponseMs,
    maxEventBytes: options.maxEventBytes ?? defaultModelSettings.maxEventBytes,
  };
  const fallback: typeof fetch = dispatcher
    ? ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) => undiciFetch(input, { ...init, dispatcher })) as unknown as typeof fetch
    : (input, init) => fetch(input, init);
  return (input, init = {}) => fetchThroughRequest(input, init, fallback, dispatcher, limits);
}

/**
 * One signal for the whole call: the caller's (a cancel), or the call's own deadline. A listener
 * rather than `AbortSignal.any`, so nothing outlives the call; `settle` removes both.
 */
function callDeadline(callerSignal: AbortSignal | null | undefined, maxMs: number): { signal: AbortSignal; settle: () => void } {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new ResponseTimedOutError(answer, maxMs)), maxMs);
  timer.unref();
  const forward = (): void => deadline.abort(callerSignal?.reason);
  callerSignal?.addEventListener('abort', forward, { once: true });
  return {
    signal: deadline.signal,
    settle: () => {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', forward);
    },
  };
}

async function fetchThroughRequest(input: Parameters<typeof fetch>[0], init: RequestInit, fallback: typeof fetch, dispatcher: Dispatcher | undefined, limits: ResponseLimits): Promise<Response> {
  const body = init.body ?? undefined;
  const simpleBody = body === undefined || typeof body === 'string' || body instanceof Uint8Array;
  init.signal?.throwIfAborted();
  const { signal, settle } = callDeadline(init.signal, limits.maxResponseMs);
  if ((typeof input !== 'string' && !(input instanceof URL)) || !simpleBody) {
    const response = await fallback(input, { ...init, signal }).catch((error: unknown) => {
      settle();
      throw signal.aborted ? signal.reason : error;
    });
    return countedBody(response, limits.maxResponseBytes, settle);
  }
  let reply: Awaited<ReturnType<typeof request>>;
  try {
    reply = await request(input, {
      method: (init.method ?? 'GET') as 'GET',
      headers: plainHeaders(init.headers),
      body,
      signal,
      ...(dispatcher ? { dispatcher } : {}),
    });
  } catch (error) {
    settle();
    if (signal.aborted) throw signal.reason;
    throw new TypeError('fetch failed', { cause: error });
  }
  const status = reply.statusCode;
  const headers = responseHeaders(reply.headers);
  const statusText = STATUS_CODES[status] ?? '';
  if (nullBodyStatuses.has(status)) {
    settle();
    reply.body.resume();
    return new Response(null, { status, statusText, headers });
  }
  const eventStream = headers.get('content-type')?.toLowerCase().includes('text/event-stream') ?? false;
  return new Response(answerStream(reply.body, { maxBytes: limits.maxResponseBytes, maxEventBytes: limits.maxEventBytes }, eventStream, settle), { status, statusText, headers });
}
