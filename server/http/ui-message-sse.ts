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
 * Write the AI SDK UI message stream protocol: SSE with
 * `x-vercel-ai-ui-message-stream: v1`, `data: <chunk>` lines and a final `data: [DONE]`.
 * Lines produced in one burst go out in one socket write (they are gathered until the next
 * turn of the event loop), without further web-stream layers. A client that goes away stops
 * receiving, but the stream is still read to its end so the turn finishes and is stored.
 */
export async function writeUiMessageSse(response: ServerResponse, peeked: PeekedStream): Promise<void> {
  response.writeHead(200, { ...UI_MESSAGE_STREAM_HEADERS, 'x-accel-buffering': 'no' });
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending && !response.destroyed && !response.writableEnded) response.write(pending);
    pending = '';
  };
  const send = (line: string) => {
    pending += line;
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  for (const chunk of peeked.head) send(`data: ${JSON.stringify(chunk)}\n\n`);
  for (;;) {
    const { value, done } = await peeked.reader.read();
    if (done) break;
    send(`data: ${JSON.stringify(value)}\n\n`);
  }
  // The last lines and the end of the body go out in one write.
  const last = `${pending}data: [DONE]\n\n`;
  pending = '';
  if (!response.destroyed && !response.writableEnded) response.end(last);
}
