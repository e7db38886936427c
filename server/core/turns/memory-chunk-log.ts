import type { UIMessageChunk } from 'ai';
import type { ChunkLog, ConversationAddress, LoggedChunk, LoggedTurnState, ReadTurnOptions, TurnAddress } from './chunk-log.js';

export interface MemoryChunkLogOptions {
  /** Chunks kept in all; beyond it the oldest turns are forgotten whole. Default 100,000. */
  maxChunks?: number;
  /** Turns kept; beyond it the oldest are forgotten. Default 1,000. */
  maxTurns?: number;
}

interface LoggedTurn {
  turnId: string;
  conversation: string;
  chunks: UIMessageChunk[];
  finished: boolean;
  /** Readers waiting for the turn's next chunk. */
  waiters: Set<() => void>;
}

const defaultIdleTimeoutMilliseconds = 5 * 60 * 1000;

function conversationOf(address: ConversationAddress): string {
  return JSON.stringify([address.accountId, address.agentId, address.conversationKey]);
}

/**
 * The chunk log of one process, for a service without NATS: resuming then works only on the
 * process that ran the turn. Bounded: the oldest turns are forgotten first (a Map keeps
 * insertion order, so its first entries are the oldest).
 */
export class MemoryChunkLog implements ChunkLog {
  private readonly turns = new Map<string, LoggedTurn>();
  /** The latest turn of each conversation. */
  private readonly latest = new Map<string, LoggedTurn>();
  private chunkCount = 0;
  /** The turn the last chunk went to, by the address object its writer passes for every chunk (no key to build per chunk). */
  private lastAppend: { address: TurnAddress; turn: LoggedTurn } | undefined;

  constructor(private readonly options: MemoryChunkLogOptions = {}) {}

  append(address: TurnAddress, chunk: UIMessageChunk): number {
    const turn = this.lastAppend?.address === address ? this.lastAppend.turn : this.turnOf(address);
    turn.chunks.push(chunk);
    this.chunkCount += 1;
    if (chunk.type === 'finish') turn.finished = true;
    for (const wake of turn.waiters) wake();
    turn.waiters.clear();
    this.evict();
    return turn.chunks.length - 1;
  }

  private turnOf(address: TurnAddress): LoggedTurn {
    const conversation = conversationOf(address);
    // The key holds the conversation too: a turn id taken from another account's stream names nothing here.
    const key = `${conversation}${address.turnId}`;
    let turn = this.turns.get(key);
    if (turn === undefined) {
      turn = { turnId: address.turnId, conversation, chunks: [], finished: false, waiters: new Set() };
      this.turns.set(key, turn);
      this.latest.set(conversation, turn);
    }
    this.lastAppend = { address, turn };
    return turn;
  }

  async turnState(address: TurnAddress): Promise<LoggedTurnState | undefined> {
    const turn = this.turns.get(`${conversationOf(address)}${address.turnId}`);
    return turn === undefined ? undefined : stateOf(turn);
  }

  async latestTurn(address: ConversationAddress): Promise<LoggedTurnState | undefined> {
    const turn = this.latest.get(conversationOf(address));
    return turn === undefined ? undefined : stateOf(turn);
  }

  async *readTurn(address: TurnAddress, afterIndex: number, options: ReadTurnOptions = {}): AsyncIterable<LoggedChunk> {
    const turn = this.turns.get(`${conversationOf(address)}${address.turnId}`);
    if (turn === undefined) return;
    const idle = options.idleTimeoutMilliseconds ?? defaultIdleTimeoutMilliseconds;
    let next = Math.max(0, afterIndex + 1);
    for (;;) {
      while (next < turn.chunks.length) {
        yield { turnId: turn.turnId, index: next, chunk: turn.chunks[next]! };
        next += 1;
      }
      if (turn.finished || options.signal?.aborted) return;
      const woken = await new Promise<boolean>((resolve) => {
        const wake = () => finish(true);
        const stop = () => finish(false);
        const timer = setTimeout(stop, idle);
        timer.unref();
        function finish(value: boolean): void {
          clearTimeout(timer);
          turn!.waiters.delete(wake);
          options.signal?.removeEventListener('abort', stop);
          resolve(value);
        }
        turn.waiters.add(wake);
        options.signal?.addEventListener('abort', stop, { once: true });
      });
      if (!woken) return;
    }
  }

  private evict(): void {
    const maxChunks = this.options.maxChunks ?? 100_000;
    const maxTurns = this.options.maxTurns ?? 1_000;
    for (const [key, turn] of this.turns) {
      if (this.chunkCount <= maxChunks && this.turns.size <= maxTurns) return;
      // The turn being logged right now stays, even alone above the limit.
      if (this.turns.size === 1) return;
      this.turns.delete(key);
      if (this.lastAppend?.turn === turn) this.lastAppend = undefined;
      this.chunkCount -= turn.chunks.length;
      if (this.latest.get(turn.conversation) === turn) this.latest.delete(turn.conversation);
      // Its readers end: what they wait for is gone.
      turn.finished = true;
      for (const wake of turn.waiters) wake();
      turn.waiters.clear();
    }
  }
}

function stateOf(turn: LoggedTurn): LoggedTurnState {
  return { turnId: turn.turnId, lastIndex: turn.chunks.length - 1, finished: turn.finished };
}
