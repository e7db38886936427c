import { createParser } from 'eventsource-parser';
import type { HarnessUIMessageChunk } from '../contract/contract-types.js';
import { HarnessResponseError } from './harness-errors.js';

/**
 * A turn's stream: the AI SDK UI message chunks, parsed from SSE, ending at `data: [DONE]`.
 * Iterate it once. `eventId` names the run (cancel it, or read its status row) before the
 * first chunk; `lastChunkId` is what a resume starts after (`Last-Event-ID`).
 */
export interface HarnessChatStream extends AsyncIterable<HarnessUIMessageChunk> {
  /** The turn's event (`X-Harness-Event-Id`), when the service named it. */
  readonly eventId: string | undefined;
  /** The `id:` of the last chunk handed on (`<turnId>:<position>`), undefined before the first. */
  readonly lastChunkId: string | undefined;
  /** Stops reading and closes the connection; the turn itself runs on (cancel it to stop it). */
  close(): Promise<void>;
}

/** The stream ended (the connection closed) before `data: [DONE]`: resume it from `lastChunkId`. */
export class StreamEndedError extends HarnessResponseError {
  constructor() {
    super('the agent service closed the chat stream before it finished');
  }
}

function parseChunk(data: string): HarnessUIMessageChunk {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw new HarnessResponseError(`the agent service sent a stream event that is not JSON: ${data.slice(0, 120)}`);
  }
  if (typeof chunk !== 'object' || chunk === null || typeof (chunk as { type?: unknown }).type !== 'string') {
    throw new HarnessResponseError(`the agent service sent a stream event without a chunk type: ${data.slice(0, 120)}`);
  }
  return chunk as HarnessUIMessageChunk;
}

/**
 * Parses SSE bytes into UI message chunks. Ends at `[DONE]` (leaving the rest of the body
 * unread); throws `StreamEndedError` when the body ends without it. Comments (`: keep-alive`)
 * and events without data are skipped. `onChunkId` hears each chunk's `id:` as it is handed on.
 */
export async function* parseUiMessageStream(
  body: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  onChunkId?: (chunkId: string) => void,
): AsyncGenerator<HarnessUIMessageChunk, void, undefined> {
  const ready: { data: string; id: string | undefined }[] = [];
  let done = false;
  const parser = createParser({
    onEvent: (event) => {
      if (done) return;
      if (event.data === '[DONE]') done = true;
      else if (event.data !== '') ready.push({ data: event.data, id: event.id });
    },
  });
  const take = (event: { data: string; id: string | undefined }): HarnessUIMessageChunk => {
    const chunk = parseChunk(event.data);
    if (event.id !== undefined && event.id !== '') onChunkId?.(event.id);
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

/** A `ReadableStream`'s bytes as an async iterable, in runtimes where the stream itself is not one (Safari). */
async function* bytesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array, void, undefined> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Leaving early (at `[DONE]`, or a `break`) closes the connection.
    await reader.cancel().catch(() => undefined);
  }
}

/** The stream of an answer whose status and content type were already checked. */
export function chatStreamOf(answer: Response): HarnessChatStream {
  let lastChunkId: string | undefined;
  let eventId = answer.headers.get('x-harness-event-id') ?? undefined;
  const body = answer.body;
  const parsed = body ? parseUiMessageStream(bytesOf(body), (chunkId) => (lastChunkId = chunkId)) : parseUiMessageStream([]);
  // A resumed stream has no header: its `start` chunk names the event.
  async function* chunks(): AsyncGenerator<HarnessUIMessageChunk, void, undefined> {
    for await (const chunk of parsed) {
      if (chunk.type === 'start' && eventId === undefined && typeof chunk.messageMetadata?.eventId === 'string') eventId = chunk.messageMetadata.eventId;
      yield chunk;
    }
  }
  const iterator = chunks();
  return {
    get eventId() {
      return eventId;
    },
    get lastChunkId() {
      return lastChunkId;
    },
    [Symbol.asyncIterator]: () => iterator,
    close: async () => {
      await iterator.return(undefined);
      await parsed.return(undefined);
      // Not read at all yet: the body was never locked, so cancel it here.
      if (body && !body.locked) await body.cancel().catch(() => undefined);
    },
  };
}

/** Refuses a success answer that is not an event stream (a proxy's page, a JSON answer). */
export async function checkEventStream(answer: Response, method: string, path: string): Promise<void> {
  const contentType = answer.headers.get('content-type') ?? '';
  if (contentType.startsWith('text/event-stream')) return;
  await answer.body?.cancel().catch(() => undefined);
  throw new HarnessResponseError(`the agent service answered ${method} ${path} with ${contentType || 'no content type'}, not an event stream (HTTP ${answer.status})`);
}
