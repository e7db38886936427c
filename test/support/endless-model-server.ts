import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { readBody } from '../../fixtures/http-body.js';
import { listen } from '../../fixtures/listen.js';
import { writable } from '../../fixtures/writable.js';

export interface EndlessModelOptions {
  /** Characters of text in each streamed delta (default 16 KiB). */
  deltaCharacters?: number;
  /** Wait between deltas (default 10 ms): about 1.6 MB/s with the default delta. */
  intervalMs?: number;
}

export interface EndlessModelServer {
  /** What an agent's `provider.openai.baseURL` takes (`api: "chat"`). */
  baseURL: string;
  port: number;
  /** Bytes streamed so far, over every request. */
  bytesStreamed(): number;
  /** Ends every stream (the client sees the connection reset) and stops listening. */
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible Chat Completions server an account can name as its model, which streams
 * text deltas forever: it never sends a finish reason, usage or `[DONE]`. It stops only when
 * the client hangs up or the server is closed.
 */
export async function startEndlessModel(options: EndlessModelOptions = {}): Promise<EndlessModelServer> {
  const delta = 'la '.repeat(Math.ceil((options.deltaCharacters ?? 16 * 1024) / 3));
  const intervalMs = options.intervalMs ?? 10;
  let streamed = 0;

  const stream = async (response: ServerResponse): Promise<void> => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (let index = 0; !response.destroyed; index += 1) {
      const chunk = { id: 'chatcmpl-endless', object: 'chat.completion.chunk', created: 0, model: 'endless', choices: [{ index: 0, delta: index === 0 ? { role: 'assistant', content: delta } : { content: delta }, finish_reason: null }] };
      const text = `data: ${JSON.stringify(chunk)}\n\n`;
      if (!response.write(text)) await writable(response);
      streamed += text.length;
      await sleep(intervalMs);
    }
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    await readBody(request);
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    await stream(response);
  };

  const http = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  const origin = await listen(http);
  return {
    baseURL: `${origin}/v1`,
    port: Number(new URL(origin).port),
    bytesStreamed: () => streamed,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
