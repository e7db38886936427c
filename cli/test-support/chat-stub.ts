import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RecordedRequest } from './stub-service.js';

/** What the stub answers: chunks as an SSE UI message stream, or a JSON body. */
export type ChatStubReply = { status?: number; chunks: unknown[]; done?: boolean } | { status: number; json: unknown };

/**
 * A stand-in for the agent service's chat and history routes: records each request and
 * answers from a handler, streaming chunks the way the service does (contract §5).
 */
export async function startChatStub(handler: (request: RecordedRequest, index: number) => ChatStubReply): Promise<{
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}> {
  const requests: RecordedRequest[] = [];
  const stream = (reply: ServerResponse, answer: Extract<ChatStubReply, { chunks: unknown[] }>): void => {
    reply.writeHead(answer.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-vercel-ai-ui-message-stream': 'v1' });
    for (const chunk of answer.chunks) reply.write(`data: ${JSON.stringify(chunk)}\n\n`);
    if (answer.done !== false) reply.write('data: [DONE]\n\n');
    reply.end();
  };
  const server = createServer((request, reply) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const recorded = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body };
      requests.push(recorded);
      const answer = handler(recorded, requests.length - 1);
      if ('chunks' in answer) return stream(reply, answer);
      reply.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
