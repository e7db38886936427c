import type { UIMessageChunk } from 'ai';
import type { ChunkLog, ConversationAddress, LoggedChunk, LoggedTurnState, ReadTurnOptions, TurnAddress } from './chunk-log.js';

/**
 * The core's chunk log: in memory until a shared one is set (the NATS side hands over its
 * JetStream log once it starts, which happens after the core is built).
 */
export class SwitchableChunkLog implements ChunkLog {
  constructor(private current: ChunkLog) {}

  /** From now on, chunks go to (and are read from) this log. */
  use(log: ChunkLog): void {
    this.current = log;
  }

  append(turn: TurnAddress, chunk: UIMessageChunk): number {
    return this.current.append(turn, chunk);
  }

  turnState(turn: TurnAddress): Promise<LoggedTurnState | undefined> {
    return this.current.turnState(turn);
  }

  latestTurn(conversation: ConversationAddress): Promise<LoggedTurnState | undefined> {
    return this.current.latestTurn(conversation);
  }

  readTurn(turn: TurnAddress, afterIndex: number, options?: ReadTurnOptions): AsyncIterable<LoggedChunk> {
    return this.current.readTurn(turn, afterIndex, options);
  }
}
