import { describe, expect, it } from 'vitest';
import { boundedResponseFetch } from './bounded-response-fetch.js';

class TooLarge extends Error {}

/** A `fetch` that answers `body` (a stream made per call) with `headers`. */
const fetchOf = (body: () => ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  (async () => new Response(body(), { status: 200, headers: { 'content-type': 'application/json', ...headers } })) as typeof globalThis.fetch;

/** A body that never ends: without a bound, `response.json()` on it never settles. */
function endless(): { stream: () => ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const chunk = new TextEncoder().encode(`"${'x'.repeat(1022)}",`);
  return {
    stream: () => new ReadableStream({ pull: (controller) => { pulled += chunk.byteLength; controller.enqueue(chunk); } }),
    pulled: () => pulled,
  };
}

describe('boundedResponseFetch', () => {
  it('errors the body of an endless answer once it passes the bound, before anything parses it', async () => {
    const source = endless();
    let told = 0;
    const fetch = boundedResponseFetch(fetchOf(source.stream), 64 * 1024, () => {
      told += 1;
      return new TooLarge('too large');
    });
    const response = await fetch('http://mcp.test/');
    await expect(response.json()).rejects.toBeInstanceOf(TooLarge);
    expect(told).toBe(1);
    // Pulled at most a few chunks past the bound (the stream's own read-ahead), then cancelled.
    expect(source.pulled()).toBeLessThan(80 * 1024);
  });

  it('refuses a declared Content-Length over the bound on the first read', async () => {
    const fetch = boundedResponseFetch(fetchOf(() => new Response('{}').body as ReadableStream<Uint8Array>, { 'content-length': String(10 * 1024 * 1024) }), 1024, () => new TooLarge('declared'));
    await expect((await fetch('http://mcp.test/')).text()).rejects.toBeInstanceOf(TooLarge);
  });

  it('passes an answer within the bound unchanged', async () => {
    const fetch = boundedResponseFetch(fetchOf(() => new Response('{"jsonrpc":"2.0","id":1,"result":{}}').body as ReadableStream<Uint8Array>), 1024, () => new TooLarge('x'));
    const response = await fetch('http://mcp.test/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });
});
