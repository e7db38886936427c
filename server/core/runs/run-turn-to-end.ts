import type { UIMessageChunk } from 'ai';
import type { StartedTurn, TurnResult } from '../turns/turn-types.js';

/**
 * Runs a started turn to its end and returns its result: the way every driver that does not
 * stream to a person (`/async`, cron, continuations, channels, subagents) consumes a turn.
 * `onChunk` sees each chunk as it comes (NATS publishes them); the turn itself runs whether
 * or not its stream is read, reading it only keeps it from buffering.
 */
export async function runTurnToEnd(turn: Pick<StartedTurn, 'stream' | 'result'>, onChunk?: (chunk: UIMessageChunk) => void): Promise<TurnResult> {
  const reader = turn.stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) onChunk?.(next.value);
  return turn.result;
}
