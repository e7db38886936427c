import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as received (what the signature covers). */
  body: string;
}

/**
 * A completion webhook receiver for tests: records every POST and answers with the statuses
 * queued by `answerWith` (then 200).
 */
export async function startWebhookReceiver(): Promise<{
  url: string;
  received: ReceivedWebhook[];
  answerWith(...statuses: number[]): void;
  /** Waits (real time) until at least `count` requests arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}> {
  const received: ReceivedWebhook[] = [];
  const answers: number[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(answers.shift() ?? 200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks/completion`,
    received,
    answerWith: (...statuses) => void answers.push(...statuses),
    waitFor: async (count, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} webhook requests, got ${received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return received;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
