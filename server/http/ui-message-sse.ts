import type { ServerResponse } from 'node:http';
import { UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from 'ai';

/** Chunks that open a stream without saying anything yet. */
const preambleTypes = new Set(['start', 'start-step']);

export interface PeekedStream {
  /** The chunks read so far, to be sent first. */
  head: UIMessageChunk[];
  /** The first chunk with content is an error: the model failed before saying anything. */
  failedBeforeOutput: boolean;
  reader: ReadableStreamDefaultReader<UIMessageChunk>;
}

/**
 * Read up to the first chunk with content. If that is an error, nothing has been sent yet and
 * the caller can still answer 502 instead of a stream that only carries an error.
 */
export async function peekStream(stream: ReadableStream<UIMessageChunk>): Promise<PeekedStream> {
  const reader = stream.getReader();
  const head: UIMessageChunk[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { head, failedBeforeOutput: false, reader };
    head.push(value);
    if (!preambleTypes.has(value.type)) return { head, failedBeforeOutput: value.type === 'error', reader };
  }
}

/**
 * Writes the AI SDK UI message stream protocol on a raw response: SSE with
 * `x-vercel-ai-ui-message-stream: v1`, `id: <event id>` and `data: <chunk>` lines, and a final
 * `data: [DONE]`. Lines produced in one burst go out in one socket write (they are gathered
 * until the next turn of the event loop), without further web-stream layers. A client that
 * went away stops receiving; the caller keeps reading its source to the end.
 */
export class UiMessageSseWriter {
  private pending = '';
  private scheduled = false;

  /** `headers`: more response headers (the chat route's `x-harness-event-id`). */
  constructor(
    private readonly response: ServerResponse,
    headers: Record<string, string> = {},
  ) {
    response.writeHead(200, { ...UI_MESSAGE_STREAM_HEADERS, 'x-accel-buffering': 'no', ...headers });
  }

  /** True once the client went away. */
  get closed(): boolean {
    return this.response.destroyed || this.response.writableEnded;
  }

  send(chunk: UIMessageChunk, eventId?: string): void {
    this.pending += eventId === undefined ? `data: ${JSON.stringify(chunk)}\n\n` : `id: ${eventId}\ndata: ${JSON.stringify(chunk)}\n\n`;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** The last lines and the end of the body, in one write. */
  end(): void {
    const last = `${this.pending}data: [DONE]\n\n`;
    this.pending = '';
    if (!this.closed) this.response.end(last);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.pending && !this.closed) this.response.write(this.pending);
    this.pending = '';
  };
}

/**
 * Streams a turn as SSE. `eventIdOf` gives each chunk's event id (and logs it for resuming).
 * A client that goes away stops receiving, but the stream is still read to its end so the turn
 * finishes and is stored.
 */
export async function writeUiMessageSse(response: ServerResponse, peeked: PeekedStream, eventIdOf?: (chunk: UIMessageChunk) => string | undefined, headers?: Record<string, string>): Promise<void> {
  const writer = new UiMessageSseWriter(response, headers);
  for (const chunk of peeked.head) writer.send(chunk, eventIdOf?.(chunk));
  for (;;) {
    const { value, done } = await peeked.reader.read();
    if (done) break;
    writer.send(value, eventIdOf?.(value));
  }
  writer.end();
}

/**
 * The turn's stream with its `start` chunks naming `messageId`: a turn that goes on after
 * approvals answered in an assistant message continues that message in `useChat`, rather
 * than showing the same tool calls again in a new one.
 */
export function continuingMessage(stream: ReadableStream<UIMessageChunk>, messageId: string): ReadableStream<UIMessageChunk> {
  return stream.pipeThrough(
    new TransformStream<UIMessageChunk, UIMessageChunk>({
      transform(chunk, controller) {
        controller.enqueue(chunk.type === 'start' ? { ...chunk, messageId } : chunk);
      },
    }),
  );
}
