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
export async function* parseUiMessageStream(body: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): AsyncGenerator<UIMessageChunk, void, undefined> {
  const ready: string[] = [];
  let done = false;
  const parser = createParser({
    onEvent: (event) => {
      if (done) return;
      if (event.data === '[DONE]') done = true;
      else if (event.data !== '') ready.push(event.data);
    },
  });
  // One decoder for the whole body, so a character split across two reads stays whole.
  const decoder = new TextDecoder();
  for await (const bytes of body) {
    parser.feed(typeof bytes === 'string' ? bytes : decoder.decode(bytes, { stream: true }));
    for (let data = ready.shift(); data !== undefined; data = ready.shift()) yield parseChunk(data);
    if (done) return;
  }
  parser.feed(decoder.decode());
  for (let data = ready.shift(); data !== undefined; data = ready.shift()) yield parseChunk(data);
  if (!done) throw new StreamEndedError();
}

export interface UiStreamRequest {
  url: string;
  /** Sent as `Authorization: Bearer <secret>`. */
  secret?: string;
  /** Serialised as the JSON body. */
  body: unknown;
  signal?: AbortSignal;
  /** Named when the service cannot be reached (see `ApiClientOptions.serveCommand`). */
  serveCommand?: string;
}

/**
 * POSTs a JSON body asking for an event stream and returns its chunks. An error status
 * (before streaming) is thrown as the service's `ApiError`; a reply that is not an event
 * stream is a `CliError`.
 */
export async function requestUiMessageStream(options: UiStreamRequest): Promise<AsyncIterable<UIMessageChunk>> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
  if (options.secret) headers.authorization = `Bearer ${options.secret}`;
  let reply: Awaited<ReturnType<typeof request>>;
  try {
    reply = await request(options.url, { method: 'POST', headers, body: JSON.stringify(options.body), signal: options.signal });
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
    throw errorFromReply(reply.statusCode, parsed, text, 'POST', path);
  }
  const contentType = String(reply.headers['content-type'] ?? '');
  if (!contentType.startsWith('text/event-stream')) {
    await reply.body.dump();
    throw new CliError(`the agent service answered POST ${path} with ${contentType || 'no content type'}, not an event stream (HTTP ${reply.statusCode})`);
  }
  return parseUiMessageStream(reply.body);
}
