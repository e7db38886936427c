import { setTimeout as sleep } from 'node:timers/promises';
import type { UIMessageChunk } from 'ai';
import { CliError } from '../cli-error.js';
import { StreamEndedError } from './ui-stream-reader.js';

/** The connection dropped mid-turn and the service had nothing to resume it with. */
export class StreamNotResumableError extends CliError {
  constructor() {
    super('the connection to the agent service dropped mid-turn and the service has nothing left to resume it with; the turn goes on there and its end is in the stored conversation');
  }
}

export interface ResumableStreamOptions {
  /** The turn's stream as first opened. */
  first: AsyncIterable<UIMessageChunk>;
  /** The id of the last chunk handed on (the streams report each chunk's id as they hand it on). */
  lastEventId(): string | undefined;
  /** Asks for the rest after a chunk id; undefined when the service has nothing left (204). */
  resume(lastEventId: string): Promise<AsyncIterable<UIMessageChunk> | undefined>;
  signal?: AbortSignal;
  /** Reconnects tried in a row after a drop before giving up. Default 5. */
  maxAttempts?: number;
  /** The wait before the first reconnect, doubled for each further one. Default 250 ms. */
  firstDelayMilliseconds?: number;
}

/** A read that failed because the connection went away, not because of what was sent. */
function isDrop(error: unknown): boolean {
  if (error instanceof StreamEndedError) return true;
  if (error instanceof CliError) return false;
  const code = (error as { code?: unknown }).code;
  const name = (error as { name?: unknown }).name;
  return name !== 'AbortError' && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED' || /terminated|other side closed|socket/i.test((error as Error).message ?? ''));
}

/**
 * A turn's chunks that survive a dropped connection: when the stream breaks before its end, it
 * is asked again from the last chunk id seen (`Last-Event-ID`), so the chunks go on where they
 * stopped, none lost and none repeated. The service never stops a turn for a dropped
 * connection, so the rest is there to be read.
 */
export async function* resumableStream(options: ResumableStreamOptions): AsyncGenerator<UIMessageChunk, void, undefined> {
  let stream = options.first;
  const maxAttempts = options.maxAttempts ?? 5;
  for (let failures = 0; ; ) {
    try {
      for await (const chunk of stream) {
        failures = 0;
        yield chunk;
      }
      return;
    } catch (error) {
      const lastEventId = options.lastEventId();
      if (!isDrop(error) || lastEventId === undefined || options.signal?.aborted) throw error;
      let resumed: AsyncIterable<UIMessageChunk> | undefined;
      for (;;) {
        failures += 1;
        if (failures > maxAttempts) throw error;
        await sleep((options.firstDelayMilliseconds ?? 250) * 2 ** (failures - 1), undefined, options.signal ? { signal: options.signal } : {});
        try {
          resumed = await options.resume(lastEventId);
          break;
        } catch (reconnectError) {
          // The service may be restarting: a refused connection is tried again, an answer is not.
          if (!(reconnectError instanceof CliError) || !/cannot reach/i.test(reconnectError.message)) throw reconnectError;
        }
      }
      if (resumed === undefined) throw new StreamNotResumableError();
      stream = resumed;
    }
  }
}
