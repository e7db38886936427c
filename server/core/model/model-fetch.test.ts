import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponseTimedOutError, ResponseTooLargeError } from '../outbound/response-limit-errors.js';
import { createModelFetch, modelFetch } from './model-fetch.js';

async function readBody(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text;
}

describe('modelFetch', () => {
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      void (async () => {
        const body = await readBody(request);
        if (request.url === '/stream') {
          response.writeHead(201, { 'content-type': 'text/event-stream', 'set-cookie': ['a=1', 'b=2'], 'x-echo': `${request.method} ${request.headers.authorization} ${body}` });
          response.write('data: one\n\n');
          setTimeout(() => response.end('data: two\n\n'), 20);
        } else if (request.url === '/empty') {
          response.writeHead(204).end();
        } else if (request.url === '/endless') {
          // Streams until the client goes: what an account's baseURL could do.
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          const chunk = `data: ${'x'.repeat(16 * 1024)}\n\n`;
          const write = (): void => {
            let open = !response.destroyed;
            while (open) open = response.write(chunk) && !response.destroyed;
            if (!response.destroyed) response.once('drain', write);
          };
          write();
        } else if (request.url === '/silent') {
          // Never answers: the deadline must cover the wait for the headers too.
        } else if (request.url === '/hang') {
          response.writeHead(200);
          response.write('started');
        } else {
          response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"nope"}');
        }
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends method, headers and body, and streams the answer with its status and headers', async () => {
    const response = await modelFetch(`${baseUrl}/stream`, { method: 'POST', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: '{"x":1}' });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Created');
    expect(response.headers.get('x-echo')).toBe('POST Bearer k {"x":1}');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.text()).toBe('data: one\n\ndata: two\n\n');
  });

  it('accepts Headers objects and byte bodies, and gives error statuses as responses', async () => {
    const response = await modelFetch(new URL(`${baseUrl}/missing`), { method: 'POST', headers: new Headers({ authorization: 'Bearer k' }), body: new TextEncoder().encode('{}') });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'nope' });
  });

  it('answers a 204 with no body', async () => {
    const response = await modelFetch(`${baseUrl}/empty`);
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('fails like fetch when nothing listens: TypeError "fetch failed" with the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await modelFetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('fetch failed');
    expect(((failure as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('rejects with the abort reason when the signal fires, before or during the request', async () => {
    const before = AbortSignal.abort(new Error('stopped before'));
    await expect(modelFetch(`${baseUrl}/stream`, { signal: before })).rejects.toThrow('stopped before');
    const controller = new AbortController();
    const response = await modelFetch(`${baseUrl}/hang`, { signal: controller.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('started');
    controller.abort(new Error('stopped during'));
    await expect(reader.read()).rejects.toThrow();
  });

  it("fails an answer that streams forever once it passes maxResponseBytes, naming the limit", async () => {
    const capped = createModelFetch({ maxResponseBytes: 256 * 1024 });
    const response = await capped(`${baseUrl}/endless`, { method: 'POST', body: '{}' });
    let read = 0;
    const failure = await (async () => {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) read += chunk.byteLength;
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ResponseTooLargeError);
    expect((failure as Error).message).toBe("the model's answer exceeded 262144 bytes");
    expect(read).toBeLessThanOrEqual(256 * 1024);
  });

  it('fails a call whose answer does not end within maxResponseMs, before or after the headers', async () => {
    const bounded = createModelFetch({ maxResponseMs: 200 });
    await expect(bounded(`${baseUrl}/silent`, { method: 'POST', body: '{}' })).rejects.toThrow(ResponseTimedOutError);
    const response = await bounded(`${baseUrl}/hang`);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('started');
    const failure = await reader.read().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ResponseTimedOutError);
    expect((failure as Error).message).toBe("the model's answer took longer than 200 ms");
  });
});
