import type { Readable } from 'node:stream';
import { ResponseTooLargeError } from '../outbound/response-limit-errors.js';

/** What one model answer may hold. */
export interface AnswerStreamLimits {
  /** Bytes of the whole answer (`HARNESS_MODEL_MAX_RESPONSE_BYTES`). */
  maxBytes: number;
  /**
   * Bytes of one server-sent event (`HARNESS_MODEL_MAX_EVENT_BYTES`), checked only when the answer
   * is `text/event-stream`: the AI SDK buffers an event whole, then parses and re-serialises it
   * in one go, so one huge event holds the event loop (30 MiB: 0.2 s and 200 MiB of heap).
   */
  maxEventBytes?: number;
}

/**
 * Most bytes handed to the reader in one turn of the event loop. The AI SDK parses, validates and
 * re-streams every event of a piece before the loop turns again: a 64 KiB socket read of tiny
 * events is ~550 events, 60-140 ms of one task, while other accounts' requests wait.
 */
export const answerSliceBytes = 16 * 1024;

const answer = "the model's answer";
const newline = 0x0a;
const carriageReturn = 0x0d;

/**
 * Follows the events of a server-sent event stream across pieces: the bytes since the last
 * blank line. Jumps from newline to newline (a native search), so a normal answer costs a few
 * searches per piece. An answer with no newline at all (`\r`-only line ends) is one long event.
 */
class EventSizeWatch {
  private eventBytes = 0;
  private lineBytes = 0;
  private lastByte = -1;

  constructor(private readonly maxEventBytes: number) {}

  /** False once an event is longer than the bound. */
  accept(piece: Buffer): boolean {
    let position = 0;
    for (;;) {
      const found = piece.indexOf(newline, position);
      const end = found === -1 ? piece.length : found;
      if (end > position) {
        this.lineBytes += end - position;
        this.lastByte = piece[end - 1]!;
      }
      this.eventBytes += end - position;
      if (this.eventBytes > this.maxEventBytes) return false;
      if (found === -1) return true;
      const blank = this.lineBytes === 0 || (this.lineBytes === 1 && this.lastByte === carriageReturn);
      this.eventBytes = blank ? 0 : this.eventBytes + 1;
      this.lineBytes = 0;
      this.lastByte = -1;
      position = found + 1;
    }
  }
}

/**
 * A web stream over a model answer's Node stream, pausing the socket while the reader is behind.
 * The bytes are counted in the one 'data' handler (no extra stream layer per chunk): past a limit
 * the body is destroyed with the error, which the reader then sees. A piece larger than
 * `answerSliceBytes` is handed over in slices, one per turn of the event loop. `settled` runs once
 * the body is done.
 */
export function answerStream(body: Readable, limits: AnswerStreamLimits, eventStream: boolean, settled: () => void): ReadableStream<Uint8Array> {
  let received = 0;
  const events = eventStream && limits.maxEventBytes !== undefined ? new EventSizeWatch(limits.maxEventBytes) : undefined;
  /** A large piece still being handed over, and where. */
  let pending: Buffer | undefined;
  let offset = 0;
  let ended = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const give = (piece: Buffer): void => {
        // A piece the socket had read before the reader let go (cancel destroys the body, but a
        // 'data' event of the same read can still come): the stream is closed, so it is dropped.
        if (done) return;
        controller.enqueue(new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength));
      };
      const finish = (): void => {
        if (done) return;
        done = true;
        controller.close();
      };
      const handOver = (): void => {
        if (done || !pending) return;
        const end = Math.min(offset + answerSliceBytes, pending.byteLength);
        give(pending.subarray(offset, end));
        offset = end;
        if (offset < pending.byteLength) {
          setImmediate(handOver);
          return;
        }
        pending = undefined;
        if (ended) finish();
        else if ((controller.desiredSize ?? 1) > 0) body.resume();
      };
      body.on('data', (chunk: Buffer) => {
        // A body destroyed by a cancel still hands out what it had buffered until it closes (a
        // resume already queued): the stream is closed by then, and enqueueing would throw out of
        // this handler and take the process down.
        if (done) return;
        received += chunk.byteLength;
        if (received > limits.maxBytes) {
          body.destroy(new ResponseTooLargeError(answer, limits.maxBytes));
          return;
        }
        if (events && !events.accept(chunk)) {
          body.destroy(new ResponseTooLargeError(`an event of ${answer}`, limits.maxEventBytes!));
          return;
        }
        if (chunk.byteLength > answerSliceBytes) {
          body.pause();
          pending = chunk;
          offset = 0;
          handOver();
          return;
        }
        give(chunk);
        if ((controller.desiredSize ?? 1) <= 0) body.pause();
      });
      body.once('end', () => {
        ended = true;
        if (!pending) finish();
      });
      body.once('error', (error) => {
        done = true;
        pending = undefined;
        controller.error(error);
      });
      body.once('close', settled);
    },
    pull() {
      if (!pending) body.resume();
    },
    cancel(reason) {
      done = true;
      pending = undefined;
      body.destroy(reason instanceof Error ? reason : undefined);
    },
  });
}
