import type { UIMessageChunk } from 'ai';
import { HarnessClient, HarnessResponseError, parseUiMessageStream as parseChunks, StreamEndedError as ClientStreamEndedError } from '../../client/index.js';
import { cliError } from '../api-client.js';
import { CliError } from '../cli-error.js';

/**
 * Reads the AI SDK UI message stream, what chat answers with: SSE `data: <JSON chunk>` events
 * ending with `data: [DONE]`, read by `harness/client`, its failures said as the CLI says them.
 */

/** The stream ended (the connection closed) before `data: [DONE]`. */
export class StreamEndedError extends CliError {
  constructor() {
    super('the agent service closed the chat stream before it finished');
  }
}

/** A stream failure of the client as the CLI's error. */
function streamError(error: unknown): unknown {
  if (error instanceof ClientStreamEndedError) return new StreamEndedError();
  if (error instanceof HarnessResponseError) return new CliError(error.message, { cause: error });
  return error;
}

/** The client's chunks, with its stream failures turned into the CLI's errors. */
async function* asCliStream(chunks: AsyncIterable<UIMessageChunk>): AsyncGenerator<UIMessageChunk, void, undefined> {
  try {
    yield* chunks;
  } catch (error) {
    throw streamError(error);
  }
}

/**
 * Parses SSE bytes into UI message chunks. Ends at `[DONE]` (leaving the rest of the body
 * unread, which closes it); throws `StreamEndedError` when the body ends without it.
 * Comments (`: keep-alive`) and events without data are skipped.
 */
export function parseUiMessageStream(
  body: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  onEventId?: (eventId: string) => void,
): AsyncGenerator<UIMessageChunk, void, undefined> {
  return asCliStream(parseChunks(body, onEventId) as AsyncIterable<UIMessageChunk>);
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
  const url = new URL(options.url);
  const baseUrl = url.origin;
  const client = new HarnessClient({ agentUrl: baseUrl, ...(options.secret ? { secret: options.secret } : {}) });
  const method = options.body === undefined ? 'GET' : 'POST';
  const errorOptions = { baseUrl, serviceName: 'agent', ...(options.serveCommand ? { serveCommand: options.serveCommand } : {}) };
  let answer: Response;
  try {
    answer = await client.fetchRaw('agent', method, `${url.pathname}${url.search}`, {
      accept: 'text/event-stream',
      ...(method === 'POST' ? { json: options.body } : {}),
      ...(options.lastEventId === undefined ? {} : { headers: { 'last-event-id': options.lastEventId } }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    throw cliError(error, errorOptions);
  }
  if (answer.status === 204) {
    await answer.body?.cancel();
    return undefined;
  }
  const contentType = answer.headers.get('content-type') ?? '';
  if (!contentType.startsWith('text/event-stream')) {
    await answer.body?.cancel();
    throw new CliError(`the agent service answered ${method} ${url.pathname} with ${contentType || 'no content type'}, not an event stream (HTTP ${answer.status})`);
  }
  return parseUiMessageStream(answer.body ?? [], options.onEventId);
}
