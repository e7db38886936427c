import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { UIMessageChunk } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, CliError } from '../cli-error.js';
import { parseUiMessageStream, requestUiMessageStream, StreamEndedError } from './ui-stream-reader.js';

/** A real HTTP server whose answer is written by the test, piece by piece. */
let server: ReturnType<typeof createServer> | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function serveWith(write: (reply: ServerResponse, body: string) => Promise<void>): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  server = createServer((request, reply) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      bodies.push(body);
      void write(reply, body);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/agents/a/chat`, bodies };
}

const sseHeaders = { 'content-type': 'text/event-stream', 'x-vercel-ai-ui-message-stream': 'v1' };

/** Writes each piece as its own TCP write, waiting in between so they arrive apart. */
async function writeApart(reply: ServerResponse, pieces: (string | Buffer)[]): Promise<void> {
  reply.writeHead(200, sseHeaders);
  reply.flushHeaders();
  for (const piece of pieces) {
    reply.write(piece);
    await delay(5);
  }
  reply.end();
}

async function collect(stream: AsyncIterable<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('requestUiMessageStream', () => {
  it('reads chunks split across TCP writes, multi-line data, comments, and stops at [DONE]', async () => {
    const snowman = Buffer.from('data: {"type":"text-delta","id":"0","delta":"☃ snow"}\n\n');
    const cut = snowman.indexOf(Buffer.from('☃')) + 1; // inside the three bytes of ☃
    const { url, bodies } = await serveWith((reply) =>
      writeApart(reply, [
        ': a comment the reader skips\n\n',
        'data: {"type":"st',
        'art"}\n',
        '\ndata: {"type":"text-start",\ndata: "id":"0"}\n\n',
        snowman.subarray(0, cut),
        snowman.subarray(cut),
        'event: message\nid: 7\ndata: {"type":"text-end","id":"0"}\r\n\r\n',
        'data: {"type":"finish","messageMetadata":{"status":"completed"}}\n\ndata: [DONE]\n\n',
        'data: {"type":"error","errorText":"after DONE: never read"}\n\n',
      ]),
    );
    const chunks = await collect(await requestUiMessageStream({ url, secret: 'sk', body: { conversationKey: 'c1', message: 'hi' } }));
    expect(chunks).toEqual([
      { type: 'start' },
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', delta: '☃ snow' },
      { type: 'text-end', id: '0' },
      { type: 'finish', messageMetadata: { status: 'completed' } },
    ]);
    expect(JSON.parse(bodies[0] ?? '')).toEqual({ conversationKey: 'c1', message: 'hi' });
  });

  it('sends the bearer secret and asks for an event stream', async () => {
    let headers: Record<string, unknown> = {};
    const { url } = await serveWith(async (reply) => {
      reply.writeHead(200, sseHeaders).end('data: [DONE]\n\n');
    });
    server?.prependListener('request', (request) => (headers = request.headers));
    await collect(await requestUiMessageStream({ url, secret: 'sk-123', body: {} }));
    expect(headers).toMatchObject({ authorization: 'Bearer sk-123', accept: 'text/event-stream', 'content-type': 'application/json' });
  });

  it('throws when the stream ends before [DONE]', async () => {
    const { url } = await serveWith((reply) => writeApart(reply, ['data: {"type":"start"}\n\n']));
    const stream = await requestUiMessageStream({ url, body: {} });
    await expect(collect(stream)).rejects.toBeInstanceOf(StreamEndedError);
  });

  it("turns an error status into the service's ApiError", async () => {
    const { url } = await serveWith(async (reply) => {
      reply.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'upstream_error', message: 'The model failed.' } }));
    });
    const failure = requestUiMessageStream({ url, body: {} });
    await expect(failure).rejects.toBeInstanceOf(ApiError);
    await expect(failure).rejects.toThrow('The model failed. (upstream_error, HTTP 502)');
  });

  it('refuses a reply that is not an event stream', async () => {
    const { url } = await serveWith(async (reply) => {
      reply.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await expect(requestUiMessageStream({ url, body: {} })).rejects.toThrow(/application\/json, not an event stream/);
  });

  it('says which service it cannot reach', async () => {
    const { url } = await serveWith(async () => {});
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    await expect(requestUiMessageStream({ url, body: {} })).rejects.toThrow(/cannot reach the agent service at http:\/\/127\.0\.0\.1:\d+/);
  });
});

describe('parseUiMessageStream', () => {
  it('rejects an event that is not a JSON chunk', async () => {
    await expect(collect(parseUiMessageStream(['data: not json\n\n']))).rejects.toThrow(CliError);
    await expect(collect(parseUiMessageStream(['data: {"no":"type"}\n\n']))).rejects.toThrow(/without a chunk type/);
  });
});
