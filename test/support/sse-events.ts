import type { UIMessageChunk } from 'ai';
import { EventSourceParserStream } from 'eventsource-parser/stream';

/** One SSE event of a UI message stream: its `id:` and its chunk (`undefined` for `[DONE]`). */
export interface StreamEvent {
  id: string | undefined;
  chunk: UIMessageChunk | undefined;
}

export function events(response: Response): ReadableStreamDefaultReader<StreamEvent> {
  return response
    .body!.pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .pipeThrough(
      new TransformStream<{ id?: string; data: string }, StreamEvent>({
        transform(event, controller) {
          controller.enqueue({ id: event.id, chunk: event.data === '[DONE]' ? undefined : (JSON.parse(event.data) as UIMessageChunk) });
        },
      }),
    )
    .getReader();
}

export async function readAll(reader: ReadableStreamDefaultReader<StreamEvent>): Promise<StreamEvent[]> {
  const all: StreamEvent[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) all.push(next.value);
  return all;
}

/** Reads until (and with) the first chunk of a type. */
export async function readUntil(reader: ReadableStreamDefaultReader<StreamEvent>, type: string): Promise<StreamEvent[]> {
  const read: StreamEvent[] = [];
  for (;;) {
    const next = await reader.read();
    if (next.done) throw new Error(`the stream ended before a ${type} chunk`);
    read.push(next.value);
    if (next.value.chunk?.type === type) return read;
  }
}

/** A search, then (after a pause in the model) text: the turn is still running after the tool's output. */
export const pausingTurn = 'search: resumable streams\nthen slow: 3000\nthe rest of the answer';
