import type { UIMessageChunk } from 'ai';
import type { RunningTurns } from '../coordination/running-turns.js';
import type { TurnRequest } from './turn-types.js';

/** A running turn's stream: what the client reads, how the turn writes to it, and its end. */
export interface TurnStream {
  stream: ReadableStream<UIMessageChunk>;
  /** Enqueues a chunk; a reader that went away drops it (the turn still runs to its end and is stored). */
  write: (chunk: UIMessageChunk) => void;
  close: () => void;
}

/**
 * One stream layer of our own (rather than `createUIMessageStream`, which adds a transform per
 * chunk): every chunk of every model pass is enqueued straight into it.
 */
export function openTurnStream(): TurnStream {
  let controller!: ReadableStreamDefaultController<UIMessageChunk>;
  const stream = new ReadableStream<UIMessageChunk>({
    start(streamController) {
      controller = streamController;
    },
  });
  const write = (chunk: UIMessageChunk) => {
    try {
      controller.enqueue(chunk);
    } catch {
      // The reader cancelled the stream; the turn still runs to its end and is stored.
    }
  };
  const close = () => {
    try {
      controller.close();
    } catch {
      // Already cancelled by the reader.
    }
  };
  return { stream, write, close };
}

/**
 * Aborts `cancel` on a cancel request (the turn registers where any replica's request finds it)
 * or when the caller's own signal aborts. Returns what stops following them, once or more.
 */
export function followCancels(turn: { request: TurnRequest; turnId: string; eventId: string }, runningTurns: RunningTurns | undefined, cancel: AbortController): () => void {
  const { request, turnId, eventId } = turn;
  // An `AbortError`: what fetch, child processes and the AI SDK recognise as a deliberate stop.
  const abort = () => cancel.abort(new DOMException('The turn was cancelled.', 'AbortError'));
  const registered = runningTurns?.register({ turnId, eventId, accountId: request.accountId, agentId: request.agentId, conversationKey: request.conversationKey }, abort);
  if (request.signal?.aborted) abort();
  else request.signal?.addEventListener('abort', abort, { once: true });
  let unregistered = false;
  return () => {
    if (unregistered) return;
    unregistered = true;
    request.signal?.removeEventListener('abort', abort);
    registered?.();
  };
}
