import type { UIMessageChunk } from 'ai';
import { EventSourceParserStream } from 'eventsource-parser/stream';

/** The UI message chunks of an SSE response, as a stream (ends at `[DONE]`). */
export function uiChunkStream(response: Response): ReadableStream<UIMessageChunk> {
  if (!response.body) throw new Error('no body');
  return response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .pipeThrough(
      new TransformStream<{ data: string }, UIMessageChunk>({
        transform(event, controller) {
          if (event.data === '[DONE]') return;
          controller.enqueue(JSON.parse(event.data) as UIMessageChunk);
        },
      }),
    );
}

export async function collectChunks(response: Response): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  const reader = uiChunkStream(response).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}
