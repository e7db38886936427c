import { randomUUID } from 'node:crypto';
import type { UIMessageChunk } from 'ai';
import { finishChunk, startChunk } from './turn-outcome.js';
import type { StartedTurn, TurnResult } from './turn-types.js';
import type { BusyApplied } from '../agent-config/busy-mode.js';

/** The stream part that says what became of a message that met a running turn. */
export function busyChunk(applied: BusyApplied, status?: 'collected' | 'steered'): UIMessageChunk {
  return { type: 'data-busy', data: { ...applied, ...(status ? { status } : {}) } } as UIMessageChunk;
}

/**
 * A message that ran no turn of its own: collected into the next turn, or taken by the running
 * one at a step boundary. Its event is the run that answers it (`applied.runEventId`), which a
 * client follows, resumes or cancels; its stream says so and ends at once.
 */
export function handedOverTurn(conversationKey: string, applied: BusyApplied, status: 'collected' | 'steered'): StartedTurn {
  const turnId = `turn_${randomUUID()}`;
  const result: TurnResult = {
    turnId,
    eventId: applied.runEventId,
    conversationKey,
    status,
    text: '',
    messages: [],
    pendingApprovals: [],
    pendingAsyncTools: [],
    deniedApprovals: [],
    busy: applied,
  };
  return { turnId, eventId: applied.runEventId, stream: streamOf([startChunk(turnId, applied.runEventId), busyChunk(applied, status), finishChunk(result)]), result: Promise.resolve(result) };
}

/** The stream of a turn that ends at once: these chunks, then its end. */
export function streamOf(chunks: UIMessageChunk[]): ReadableStream<UIMessageChunk> {
  return new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}
