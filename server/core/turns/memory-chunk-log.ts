import type { UIMessageChunk } from 'ai';
import type { ChunkLog, ConversationAddress, LoggedChunk, LoggedTurnState, ReadTurnOptions, TurnAddress } from './chunk-log.js';

export interface MemoryChunkLogOptions {
  /** Chunks kept in all; beyond it the oldest turns are forgotten whole. Default 100,000. */
  maxChunks?: number;
  /** Turns kept; beyond it the oldest are forgotten. Default 1,000. */
  maxTurns?: number;
}

interface LoggedTurn {
  key: string;
  turnId: string;
  accountId: string;
  conversation: string;
  chunks: UIMessageChunk[];
  /** Chunks the turn has written, kept or not: the next one's position. */
  written: number;
  finished: boolean;
  /** Forgotten to keep the log within its bounds: nothing more of it is kept, its readers end. */
  evicted: boolean;
  /** Readers waiting for the turn's next chunk. */
  waiters: Set<() => void>;
}

/** What one account holds in the log: its chunks, and its turns oldest first. */
interface AccountShare {
  chunks: number;
  turns: Set<LoggedTurn>;
}

const defaultIdleTimeoutMilliseconds = 5 * 60 * 1000;

function conversationOf(address: ConversationAddress): string {
  return JSON.stringify([address.accountId, address.agentId, address.conversationKey]);
}

/**
 * The chunk log of one process, for a service without NATS: resuming then works only on the
 * process that ran the turn. Bounded, and shared fairly: past a bound, the account that holds
 * the most (chunks, or turns) loses its oldest turn first, so one account writing huge or many
 * streams forgets its own turns before another account's recent one (a Set keeps insertion
 * order, so an account's first turn is its oldest).
 */
export class MemoryChunkLog implements ChunkLog {
  private readonly turns = new Map<string, LoggedTurn>();
  /** The latest turn of each conversation. */
  private readonly latest = new Map<string, LoggedTurn>();
  private chunkCount = 0;
  private readonly accounts = new Map<string, AccountShare>();
  /** Turns forgotten while still being written, so their later chunks keep their positions (bounded like the log). */
  private readonly evictedWriting = new Map<string, LoggedTurn>();
  /** The turn the last chunk went to, by the address object its writer passes for every chunk (no key to build per chunk). */
  private lastAppend: { address: TurnAddress; turn: LoggedTurn } | undefined;

  constructor(private readonly options: MemoryChunkLogOptions = {}) {}

  append(address: TurnAddress, chunk: UIMessageChunk): number {
    const turn = this.lastAppend?.address === address ? this.lastAppend.turn : this.turnOf(address);
    const index = turn.written;
    turn.written += 1;
    if (chunk.type === 'finish') turn.finished = true;
    if (turn.evicted) {
      if (turn.finished) this.evictedWriting.delete(turn.key);
      return index;
    }
    turn.chunks.push(chunk);
    this.chunkCount += 1;
    this.accounts.get(turn.accountId)!.chunks += 1;
    for (const wake of turn.waiters) wake();
    turn.waiters.clear();
    this.evict();
    return index;
  }

  private turnOf(address: TurnAddress): LoggedTurn {
    const conversation = conversationOf(address);
    // The key holds the conversation too: a turn id taken from another account's stream names nothing here.
    const key = `${conversation}${address.turnId}`;
    let turn = this.turns.get(key) ?? this.evictedWriting.get(key);
    if (turn === undefined) {
      turn = { key, turnId: address.turnId, accountId: address.accountId, conversation, chunks: [], written: 0, finished: false, evicted: false, waiters: new Set() };
      this.turns.set(key, turn);
      this.latest.set(conversation, turn);
      let share = this.accounts.get(address.accountId);
      if (share === undefined) this.accounts.set(address.accountId, (share = { chunks: 0, turns: new Set() }));
      share.turns.add(turn);
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
      if (turn.finished || turn.evicted || options.signal?.aborted) return;
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
    while (this.chunkCount > maxChunks || this.turns.size > maxTurns) {
      // The turn being logged right now stays, even alone above the limit.
      if (this.turns.size <= 1) return;
      const byChunks = this.chunkCount > maxChunks;
      let heaviest: AccountShare | undefined;
      for (const share of this.accounts.values()) {
        if (heaviest === undefined || (byChunks ? share.chunks > heaviest.chunks : share.turns.size > heaviest.turns.size)) heaviest = share;
      }
      this.forget(heaviest!.turns.values().next().value!);
    }
  }

  /** Forgets a turn whole; its readers end (what they wait for is gone), its writer's later chunks are not kept. */
  private forget(turn: LoggedTurn): void {
    this.turns.delete(turn.key);
    this.chunkCount -= turn.chunks.length;
    const share = this.accounts.get(turn.accountId)!;
    share.chunks -= turn.chunks.length;
    share.turns.delete(turn);
    if (share.turns.size === 0) this.accounts.delete(turn.accountId);
    if (this.latest.get(turn.conversation) === turn) this.latest.delete(turn.conversation);
    turn.evicted = true;
    turn.chunks = [];
    if (!turn.finished) {
      this.evictedWriting.set(turn.key, turn);
      if (this.evictedWriting.size > (this.options.maxTurns ?? 1_000)) this.evictedWriting.delete(this.evictedWriting.keys().next().value!);
    }
    for (const wake of turn.waiters) wake();
    turn.waiters.clear();
  }
}

function stateOf(turn: LoggedTurn): LoggedTurnState {
  return { turnId: turn.turnId, lastIndex: turn.chunks.length - 1, finished: turn.finished };
}
