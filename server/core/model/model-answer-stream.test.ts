import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ResponseTooLargeError } from '../outbound/response-limit-errors.js';
import { answerSliceBytes, answerStream } from './model-answer-stream.js';

/**
 * Reads a stream to its end: the sizes of its pieces, its text, and whether a macrotask queued
 * once the first piece came (another account's request) ran before the last piece was read.
 */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<{ pieces: number[]; text: string; otherWorkRanBetween: boolean }> {
  const pieces: number[] = [];
  const decoder = new TextDecoder();
  let text = '';
  let otherWorkRan = false;
  let otherWorkRanBetween = false;
  for await (const piece of stream) {
    if (pieces.length === 0) setImmediate(() => (otherWorkRan = true));
    else otherWorkRanBetween ||= otherWorkRan;
    pieces.push(piece.byteLength);
    text += decoder.decode(piece, { stream: true });
  }
  return { pieces, text, otherWorkRanBetween };
}

const event = (data: string) => `data: ${data}\n\n`;

describe('answerStream', () => {
  it('hands a large read over in slices, the event loop turning between them, and keeps every byte', async () => {
    const body = new PassThrough();
    let settled = false;
    const stream = answerStream(body, { maxBytes: 1024 * 1024 }, true, () => (settled = true));
    const text = Array.from({ length: 2_000 }, (_unused, index) => event(`{"n":${index}}`)).join('');
    body.end(Buffer.from(text));
    const read = await readAll(stream);
    expect(read.text).toBe(text);
    expect(Math.max(...read.pieces)).toBeLessThanOrEqual(answerSliceBytes);
    expect(read.pieces.length).toBeGreaterThan(1);
    expect(read.otherWorkRanBetween).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(true);
  });

  it('passes small reads through as they come', async () => {
    const body = new PassThrough();
    const stream = answerStream(body, { maxBytes: 1024 }, true, () => undefined);
    body.write(event('one'));
    setTimeout(() => body.end(event('two')), 5);
    const read = await readAll(stream);
    expect(read.text).toBe(`${event('one')}${event('two')}`);
  });

  it('fails an event longer than maxEventBytes, even when it comes in many reads, before it is handed over whole', async () => {
    const body = new PassThrough();
    const stream = answerStream(body, { maxBytes: 64 * 1024 * 1024, maxEventBytes: 256 * 1024 }, true, () => undefined);
    body.write(event('{"small":true}'));
    const piece = 'y'.repeat(8 * 1024);
    const writing = (async () => {
      body.write('data: {"huge":"');
      for (let index = 0; index < 1_000 && !body.destroyed; index += 1) {
        body.write(piece);
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (!body.destroyed) body.end('"}\n\n');
    })();
    const failure = await readAll(stream).then(
      () => undefined,
      (error: unknown) => error,
    );
    await writing;
    expect(failure).toBeInstanceOf(ResponseTooLargeError);
    expect((failure as Error).message).toBe("an event of the model's answer exceeded 262144 bytes");
  });

  it('counts an event from its blank line: many events each under the bound pass, CRLF line ends too', async () => {
    const body = new PassThrough();
    const stream = answerStream(body, { maxBytes: 64 * 1024 * 1024, maxEventBytes: 64 * 1024 }, true, () => undefined);
    const big = `data: ${'z'.repeat(40 * 1024)}`;
    const text = `${big}\n\n${big}\r\n\r\n${big}\n\n`;
    // Cut so a blank line falls across two reads.
    body.write(text.slice(0, big.length + 1));
    body.end(text.slice(big.length + 1));
    expect((await readAll(stream)).text).toBe(text);
  });

  it('does not look for events in an answer that is not an event stream', async () => {
    const body = new PassThrough();
    const stream = answerStream(body, { maxBytes: 1024 * 1024, maxEventBytes: 64 * 1024 }, false, () => undefined);
    const json = JSON.stringify({ text: 'j'.repeat(200 * 1024) });
    body.end(json);
    expect((await readAll(stream)).text).toBe(json);
  });

  it('takes no piece once the reader has cancelled, though the body still holds some (the process must not crash)', async () => {
    const body = new PassThrough();
    const stream = answerStream(body, { maxBytes: 1024 * 1024 }, true, () => undefined);
    const reader = stream.getReader();
    // Enough pieces that the body is paused with some still buffered.
    for (let index = 0; index < 64; index += 1) body.write(event(`{"n":${index},"pad":"${'p'.repeat(1_000)}"}`));
    await reader.read();
    // A read asks for more (the body resumes on the next tick); the cancel comes before it.
    const next = reader.read();
    await reader.cancel(new Error('the call was stopped'));
    await next;
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
    expect(body.destroyed).toBe(true);
  });
});
