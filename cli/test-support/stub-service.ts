import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../../fixtures/http-body.js';

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

/** A running recording server: its address, the requests so far, and how to stop it. */
export interface RecordingServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback that records every request (whole body read) and lets
 * `respond` answer it; `index` is the request's position in `requests`.
 */
export async function startRecordingServer(respond: (request: RecordedRequest, reply: ServerResponse, index: number) => void): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, reply) => {
    void readBody(request).then((body) => {
      const recorded = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body };
      requests.push(recorded);
      respond(recorded, reply, requests.length - 1);
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

/**
 * A real HTTP server that records requests and answers from a handler, for testing the
 * CLI's requests without the whole service.
 */
export function startStubService(handler: (request: RecordedRequest) => StubReply): Promise<RecordingServer> {
  return startRecordingServer((recorded, reply) => {
    const answer = handler(recorded);
    if (answer.body === undefined) {
      reply.writeHead(answer.status).end();
      return;
    }
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    reply.writeHead(answer.status, { 'content-type': typeof answer.body === 'string' ? 'text/plain' : 'application/json' }).end(text);
  });
}
