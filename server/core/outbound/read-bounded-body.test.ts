import { describe, expect, it } from 'vitest';
import { readBoundedBody, readBoundedJson, readBoundedText, ResponseTooLargeError } from './read-bounded-body.js';

/** A body that never ends, counting what the reader pulled; cancelled tells whether the reader let go. */
function endlessResponse(): { response: Response; pulled: () => number; cancelled: () => boolean } {
  let pulled = 0;
  let cancelled = false;
  const chunk = new Uint8Array(1024).fill(97);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { response: new Response(body), pulled: () => pulled, cancelled: () => cancelled };
}

describe('readBoundedBody', () => {
  it('reads a body within the limit', async () => {
    expect(await readBoundedText(new Response('hello'), 5)).toBe('hello');
    expect(await readBoundedJson(new Response('{"ok":true}'), 100)).toEqual({ ok: true });
    expect(await readBoundedJson(new Response('not json'), 100)).toBeUndefined();
    expect((await readBoundedBody(new Response(null, { status: 204 }), 10)).byteLength).toBe(0);
  });

  it('stops reading a body that never ends just past the limit, and lets go of it', async () => {
    const endless = endlessResponse();
    const failure = await readBoundedBody(endless.response, 64 * 1024, 'the Slack API answer').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ResponseTooLargeError);
    expect((failure as ResponseTooLargeError).message).toBe('the Slack API answer exceeded 65536 bytes');
    expect((failure as ResponseTooLargeError).code).toBe('upstream_error');
    expect(endless.pulled()).toBeLessThan(64 * 1024 + 16 * 1024);
    expect(endless.cancelled()).toBe(true);
  });

  it('refuses a declared Content-Length over the limit before reading', async () => {
    const endless = endlessResponse();
    const response = new Response(endless.response.body, { headers: { 'content-length': '1000000' } });
    await expect(readBoundedBody(response, 1000)).rejects.toThrow('the answer exceeded 1000 bytes');
    expect(endless.pulled()).toBeLessThanOrEqual(1024);
  });

  it('does not echo the body in the error', async () => {
    const failure = (await readBoundedText(new Response('secret-token-in-body'), 4).catch((error: unknown) => error)) as Error;
    expect(failure.message).not.toContain('secret');
  });
});
