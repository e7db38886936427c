import type { UIMessageChunk } from 'ai';
import { createParser } from 'eventsource-parser';
import { request } from 'undici';
import { connectionError, errorFromReply } from '../api-client.js';
import { CliError } from '../cli-error.js';

/**
 * Reads the AI SDK UI message stream, what chat answers with: SSE `data: <JSON chunk>` events ending
 * with `data: [DONE]`, read with undici and eventsource-parser.
 */

/** The stream ended (the connection closed) before `data: [DONE]`. */
export class StreamEndedError extends CliError {
  constructor() {
    super('the agent service closed the chat stream before it finished');
  }
}

function parseChunk(data: string): UIMessageChunk {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw new CliError(`the agent service sent a stream event that is not JSON: ${data.slice(0, 120)}`);
  }
  if (typeof chunk !== 'object' || chunk === null || typeof (chunk as { type?: unknown }).type !== 'string') {
    throw new CliError(`the agent service sent a stream event without a chunk type: ${data.slice(0, 120)}`);
  }
  return chunk as UIMessageChunk;
}

/**
 * Parses SSE bytes into UI message chunks. Ends at `[DONE]` (leaving the rest of the body
 * unread, which closes it); throws `StreamEndedError` when the body ends without it.
 * Comments (`: keep-alive`) and events without data are skipped.
 */
export async function* parseUiMessageStream(
  body: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  onEventId?: (eventId: string) => void,
): AsyncGenerator<UIMessageChunk, void, undefined> {
  const ready: { data: string; id: string | undefined }[] = [];
  let done = false;
  const parser = createParser({
    onEvent: (event) => {
      if (done) return;
      if (event.data === '[DONE]') done = true;
      else if (event.data !== '') ready.push({ data: event.data, id: event.id });
    },
  });
  // A chunk's id is recorded as it is handed on: it is what a resume asks to start after.
  const take = (event: { data: string; id: string | undefined }): UIMessageChunk => {
    const chunk = parseChunk(event.data);
    if (event.id !== undefined && event.id !== '') onEventId?.(event.id);
    return chunk;
  };
  // One decoder for the whole body, so a character split across two reads stays whole.
  const decoder = new TextDecoder();
  for await (const bytes of body) {
    parser.feed(typeof bytes === 'string' ? bytes : decoder.decode(bytes, { stream: true }));
    for (let event = ready.shift(); event !== undefined; event = ready.shift()) yield take(event);
    if (done) return;
  }
  parser.feed(decoder.decode());
  for (let event = ready.shift(); event !== undefined; event = ready.shift()) yield take(event);
  if (!done) throw new StreamEndedError();
}

export interface UiStreamRequest {
  url: string;
  /** Sent as `Authorization: Bearer <secret>`. */
  secret?: string;
  /** Serialised as the JSON body of a POST; without one the request is a GET (resuming a stream). */
  body?: unknown;
  /** Sent as `Last-Event-ID`: the stream starts after that chunk. */
  lastEventId?: string;
  /** Hears the `id:` of each chunk as it is handed on. */
  onEventId?: (eventId: string) => void;
  signal?: AbortSignal;
  /** Named when the service cannot be reached (see `ApiClientOptions.serveCommand`). */
  serveCommand?: string;
}

/**
 * POSTs a JSON body (or GETs, without one) asking for an event stream and returns its chunks;
 * undefined for a 204 (a resume with nothing to send). An error status (before streaming) is
 * thrown as the service's `ApiError`; a reply that is not an event stream is a `CliError`.
 */
export async function requestUiMessageStream(options: UiStreamRequest & { body: unknown }): Promise<AsyncIterable<UIMessageChunk>>;
export async function requestUiMessageStream(options: UiStreamRequest): Promise<AsyncIterable<UIMessageChunk> | undefined>;
export async function requestUiMessageStream(options: UiStreamRequest): Promise<AsyncIterable<UIMessageChunk> | undefined> {
  const method = options.body === undefined ? 'GET' : 'POST';
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (method === 'POST') headers['content-type'] = 'application/json';
  if (options.secret) headers.authorization = `Bearer ${options.secret}`;
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
  let reply: Awaited<ReturnType<typeof request>>;
  try {
    reply = await request(options.url, { method, headers, ...(method === 'POST' ? { body: JSON.stringify(options.body) } : {}), signal: options.signal });
  } catch (error) {
    throw connectionError(error, { baseUrl: new URL(options.url).origin, serviceName: 'agent', serveCommand: options.serveCommand });
  }
  const path = new URL(options.url).pathname;
  if (reply.statusCode >= 400) {
    const text = await reply.body.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    throw errorFromReply(reply.statusCode, parsed, text, method, path);
  }
  if (reply.statusCode === 204) {
    await reply.body.dump();
    return undefined;
  }
  const contentType = String(reply.headers['content-type'] ?? '');
  if (!contentType.startsWith('text/event-stream')) {
    await reply.body.dump();
    throw new CliError(`the agent service answered ${method} ${path} with ${contentType || 'no content type'}, not an event stream (HTTP ${reply.statusCode})`);
  }
  return parseUiMessageStream(reply.body, options.onEventId);
}
