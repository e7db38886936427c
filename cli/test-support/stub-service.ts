import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the stub received. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface StubReply {
  status: number;
  body?: unknown;
}

/**
 * A real HTTP server that records requests and answers from a handler, for testing the
 * CLI's requests without the whole service.
 */
export async function startStubService(handler: (request: RecordedRequest) => StubReply): Promise<{
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, reply) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const recorded = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body };
      requests.push(recorded);
      const answer = handler(recorded);
      if (answer.body === undefined) {
        reply.writeHead(answer.status).end();
        return;
      }
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      reply.writeHead(answer.status, { 'content-type': typeof answer.body === 'string' ? 'text/plain' : 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
