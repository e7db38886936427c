import { createInbox, headers as natsHeaders, type NatsConnection, type Subscription } from '@nats-io/nats-core';
import type { UIMessageChunk } from 'ai';
import type { Logger } from '../core/logger.js';
import type { StoredChunks } from './chunk-retention-share.js';
import { FirstInFirstOut } from './first-in-first-out.js';
import { sequenceHeader } from './nats-protocol.js';
import { turnReplaySubject } from './nats-subjects.js';
import { storeOutcomeOf, type StoreOutcome } from './store-acknowledgement.js';
import { chunkHeaders, chunkSequence, type ChunkTarget } from './stream-replay.js';

/** Where the chunk stream is on the current connection (see `ChunkPublisherOptions.streamState`). */
export type ChunkStreamState = 'ready' | 'preparing' | 'unavailable';

export interface ChunkPublisherOptions {
  /** The live connection, when there is one. */
  connection(): NatsConnection | undefined;
  /** True once the gateway is set up on the current connection. */
  ready(): boolean;
  /**
   * Where the chunk stream is on the current connection (default: always `ready`):
   * - `ready`: chunks are stored, then sent with their sequence;
   * - `preparing`: the gateway is creating it: stores wait (so a turn's first chunk, which
   *   waits for its store, holds its turn back), and go out once it is `ready`;
   * - `unavailable`: there is none (a server without JetStream, or one that took too long):
   *   a turn that starts now goes to the client unstored, and the stores that were waiting
   *   are given up, their chunks delivered unstored, in order. A turn keeps what it started
   *   with: one that started unstored stays unstored when the stream becomes ready, so a
   *   client never sees a turn's chunks half with sequences and half without.
   */
  streamState?(): ChunkStreamState;
  logger: Logger;
  /** Chunks kept while NATS is unreachable; the oldest go first beyond it. Default 50,000. */
  maxQueuedChunks?: number;
  /** Stores awaiting their acknowledgement at once (each turn has at most one). Default 4,096. */
  window?: number;
  /** The most bytes of chunks one store carries (the stream's largest message must allow it). Default 64 KiB. */
  maxStoreBytes?: number;
  /** A store without an answer after this long is sent again. Default 5 s. */
  ackTimeoutMilliseconds?: number;
  /** How long a chunk may keep failing to be stored (a stream leader being elected) before it is given up. Default 20 s. */
  retryWindowMilliseconds?: number;
  /** Told of every store JetStream kept: the retention share counts each account's bytes by it. */
  stored?(store: StoredChunks): void;
}

/** One turn's state: its first chunk's stream sequence (the turn's base) and what waits for it. */
interface TurnState {
  target: ChunkTarget;
  storeSubject: string;
  next: number;
  /** The stream sequence of chunk 0; `null` once its store was given up (the turn then goes unstored). */
  base?: number | null;
  /** Chunks that came before the base was known: stored and delivered once it is. */
  held: Chunk[];
  /** Chunks waiting for the turn's store in flight to be answered: they are stored together in the next one. */
  unstored: Chunk[];
  /**
   * True while one of the turn's stores is queued or in flight. A turn has one at a time, so
   * its stored messages keep the turn's order whatever is retried.
   */
  storing: boolean;
  /** The finish chunk, delivered once every store of the turn is acknowledged. */
  finish?: Chunk;
}

interface Chunk {
  turn: TurnState;
  index: number;
  data: string;
  isFinish: boolean;
}

/** One stored message: consecutive chunks of one turn, one JSON document a line (JSON text has no raw newline). */
interface Store {
  turn: TurnState;
  chunks: Chunk[];
  data: string;
  firstSentAt?: number;
  sentAt?: number;
  attempt?: number;
}

interface Delivery {
  replySubject: string;
  data: string;
  turnId: string;
  sequence?: number;
}

const defaultWindow = 4096;
const defaultMaxStoreBytes = 64 * 1024;
/**
 * Publishes a turn's chunks: each is stored in the chunk stream and sent to the client's reply
 * subject with `Harness-Sequence` (see `chunkSequence`: the stream sequence of the turn's first
 * chunk, times a million, plus the chunk's index), in the order the turn produced them.
 *
 * Only a turn's first chunk waits for its store to be acknowledged (its stream sequence is the
 * turn's base); every later chunk goes to the client at once while it is stored behind it. A
 * turn has one store in flight at a time; the chunks that come meanwhile are stored together,
 * as one message of consecutive chunks, once it is answered (so a fast turn costs JetStream one
 * store per round trip, not one per chunk, and a slow one still stores each chunk at once).
 * Stores of different turns are pipelined (up to `window` plain publishes whose
 * acknowledgements come back on one inbox subscription). The finish chunk waits until every
 * store of the turn is acknowledged, so a client that sees a turn's finish can replay the whole
 * turn.
 *
 * While NATS is unreachable the chunks wait in memory and go out, in order, once it is back;
 * every store carries `Nats-Msg-Id`, so a store repeated after a lost answer is kept once. A
 * store that fails while the connection works (a stream leader being elected after a server
 * was lost) is sent again for up to `retryWindowMilliseconds`.
 */
export class ChunkPublisher {
  private readonly turns = new Map<string, TurnState>();
  private readonly stores = new FirstInFirstOut<Store>();
  private readonly inFlight = new Map<number, Store>();
  private readonly deliveries = new FirstInFirstOut<Delivery>();
  private readonly idleWaiters: (() => void)[] = [];
  private acks: { connection: NatsConnection; prefix: string; subscription: Subscription } | undefined;
  private nextAttempt = 1;
  private timer: NodeJS.Timeout | undefined;
  private warnedUnstored = false;
  /** After a failed store, no store is sent before this time (a leader election takes a moment). */
  private pausedUntil = 0;

  constructor(private readonly options: ChunkPublisherOptions) {}

  /**
   * Queues one chunk of a turn; it is stored (and sent, when the target has a reply subject) as
   * soon as NATS allows. Returns the chunk's position in its turn.
   */
  publish(target: ChunkTarget, chunk: UIMessageChunk): number {
    let turn = this.turns.get(target.turnId);
    if (turn === undefined) {
      turn = { target, storeSubject: turnReplaySubject(target.accountId, target.agentId, target.conversationKey, target.turnId), next: 0, held: [], unstored: [], storing: false };
      this.turns.set(target.turnId, turn);
    }
    const item: Chunk = { turn, index: turn.next, data: JSON.stringify(chunk), isFinish: chunk.type === 'finish' };
    turn.next += 1;
    if (chunk.type === 'finish') this.turns.delete(target.turnId);
    if (this.streamState() === 'unavailable' && turn.base === undefined && item.index === 0) turn.base = null;
    if (item.index === 0 && turn.base === undefined) this.store(item);
    else if (turn.base === undefined) turn.held.push(item);
    else this.release(item);
    const limit = this.options.maxQueuedChunks ?? 50_000;
    if (this.deliveries.length > limit) {
      const dropped = this.deliveries.dropOldest(this.deliveries.length - limit);
      this.options.logger.warn({ component: 'nats-gateway', dropped: dropped.length }, 'NATS has been unreachable too long: dropped the oldest queued chunks');
    }
    this.resume();
    return item.index;
  }

  /** Sends a chunk that belongs to no turn (a refused request), unstored; dropped while NATS is down. */
  publishUnstored(replySubject: string, chunk: UIMessageChunk): void {
    const connection = this.options.connection();
    if (connection === undefined || connection.isClosed()) return;
    connection.publish(replySubject, JSON.stringify(chunk));
  }

  /** Chunks not yet stored or not yet delivered. */
  queued(): number {
    let held = 0;
    for (const turn of this.turns.values()) held += turn.held.length + turn.unstored.length;
    for (const turn of this.finishesWaiting) held += turn.unstored.length;
    return this.stores.length + this.inFlight.size + this.deliveries.length + held + this.finishesWaiting.size;
  }

  /** Resolves when every chunk has been stored and delivered (tests, shutdown). */
  idle(): Promise<void> {
    if (this.queued() === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Sends what is queued, if NATS is ready; call when it becomes ready. */
  resume(): void {
    try {
      this.flush();
    } catch (error) {
      this.options.logger.error({ component: 'nats-gateway', error: (error as Error).message }, 'publishing chunks failed');
    }
  }

  /** Finish chunks waiting for their turn's stores (the turn is no longer in `turns`). */
  private readonly finishesWaiting = new Set<TurnState>();

  /** A chunk whose turn's base is known (or given up): stored, and delivered now (a finish: once the turn is stored). */
  private release(item: Chunk): void {
    const { turn } = item;
    if (turn.base === null) {
      this.deliver(item, undefined);
      return;
    }
    this.store(item);
    if (item.isFinish) {
      turn.finish = item;
      this.finishesWaiting.add(turn);
    } else this.deliver(item, chunkSequence(turn.base!, item.index));
  }

  /** Queues a chunk for the client; a turn logged for SSE resumes has no reply subject, only stores. */
  private deliver(item: Chunk, sequence: number | undefined): void {
    const { replySubject } = item.turn.target;
    if (replySubject === undefined) return;
    this.deliveries.push({ replySubject, data: item.data, turnId: item.turn.target.turnId, ...(sequence === undefined ? {} : { sequence }) });
  }

  /** Stores a chunk: at once when its turn has no store in flight, else with the turn's next store. */
  private store(item: Chunk): void {
    const { turn } = item;
    turn.unstored.push(item);
    if (!turn.storing) this.queueStore(turn);
  }

  /** Queues the turn's next store: its oldest unstored chunks, up to `maxStoreBytes` (at least one). */
  private queueStore(turn: TurnState): void {
    const limit = this.options.maxStoreBytes ?? defaultMaxStoreBytes;
    let bytes = 0;
    let count = 0;
    while (count < turn.unstored.length) {
      const size = turn.unstored[count]!.data.length + 1;
      if (count > 0 && bytes + size > limit) break;
      bytes += size;
      count += 1;
    }
    const chunks = turn.unstored.splice(0, count);
    turn.storing = true;
    this.stores.push({ turn, chunks, data: chunks.length === 1 ? chunks[0]!.data : chunks.map((chunk) => chunk.data).join('\n') });
  }

  private sendable(): NatsConnection | undefined {
    const connection = this.options.connection();
    if (connection === undefined || connection.isClosed() || !this.options.ready()) return undefined;
    return connection;
  }

  /** The acknowledgement inbox on this connection (a fresh connection gets a fresh one; stores in flight on the old one go again). */
  private ackPrefix(connection: NatsConnection): string {
    if (this.acks?.connection === connection) return this.acks.prefix;
    this.acks?.subscription.unsubscribe();
    this.requeueInFlight();
    const prefix = createInbox();
    const subscription = connection.subscribe(`${prefix}.*`, {
      callback: (error, message) => {
        if (error) return;
        this.answered(Number(message.subject.slice(prefix.length + 1)), storeOutcomeOf(message));
        this.resume();
      },
    });
    this.acks = { connection, prefix, subscription };
    return prefix;
  }

  /** Puts every store in flight back at the front of the queue, oldest first, to be sent again. */
  private requeueInFlight(): void {
    const inFlight = [...this.inFlight.values()].sort((left, right) => (left.attempt ?? 0) - (right.attempt ?? 0));
    this.inFlight.clear();
    for (const store of inFlight) store.attempt = undefined;
    this.stores.unshiftAll(inFlight);
  }

  private streamState(): ChunkStreamState {
    return this.options.streamState?.() ?? 'ready';
  }

  private flush(): void {
    const connection = this.sendable();
    if (connection === undefined) return;
    // First: a store given up after its timeout releases its turn's chunks to the deliveries.
    this.checkTimeouts();
    const stream = this.streamState();
    if (stream === 'unavailable') this.giveUpStores();
    while (this.deliveries.length > 0) {
      const delivery = this.deliveries.shift()!;
      connection.publish(delivery.replySubject, delivery.data, { headers: chunkHeaders(delivery.sequence, delivery.turnId) });
    }
    // While the stream is being prepared the stores wait: the gateway resumes once it is ready.
    if (this.stores.length > 0 && stream === 'ready') {
      // After a failed store nothing is sent for a moment; a wake-up must come when it is over.
      const pause = this.pausedUntil - Date.now();
      if (pause > 0) this.schedule(pause);
      else this.sendStores(connection);
    }
    // A store whose answer never comes (sent to a server just before it died) is found late by
    // `checkTimeouts`, which only a wake-up runs: keep one coming while anything is in flight.
    if (this.inFlight.size > 0) this.schedule(500);
    this.settle();
  }

  private sendStores(connection: NatsConnection): void {
    const prefix = this.ackPrefix(connection);
    const window = this.options.window ?? defaultWindow;
    const now = Date.now();
    while (this.stores.length > 0 && this.inFlight.size < window) {
      const store = this.stores.shift()!;
      const { turn } = store;
      const first = store.chunks[0]!;
      const attempt = this.nextAttempt++;
      const headers = natsHeaders();
      // The turn id is the subject's last token: a replay reads it from there, one header less per store.
      // A store is formed once and sent again unchanged, so its first chunk's index names it for deduplication.
      headers.set('Nats-Msg-Id', `${turn.target.turnId}:${first.index}`);
      // The sequence of the store's first chunk; the others follow it one by one. The turn's first
      // chunk's sequence is its own stream sequence times a million: known only from the answer.
      if (first.index > 0 && typeof turn.base === 'number') headers.set(sequenceHeader, String(chunkSequence(turn.base, first.index)));
      store.attempt = attempt;
      store.sentAt = now;
      store.firstSentAt ??= now;
      this.inFlight.set(attempt, store);
      connection.publish(turn.storeSubject, store.data, { headers, reply: `${prefix}.${attempt}` });
    }
  }

  private answered(attempt: number, outcome: StoreOutcome): void {
    const store = this.inFlight.get(attempt);
    if (store === undefined) return;
    this.inFlight.delete(attempt);
    if ('sequence' in outcome) this.acknowledged(store, outcome.sequence);
    else this.failed(store, outcome.error);
  }

  private acknowledged(store: Store, streamSequence: number | undefined): void {
    const { turn } = store;
    const first = store.chunks[0]!;
    if (first.index === 0 && turn.base === undefined) {
      turn.base = streamSequence ?? null;
      this.deliver(first, turn.base === null ? undefined : chunkSequence(turn.base, 0));
      // Still storing: the held chunks gather into the turn's next store instead of one store each.
      for (const held of turn.held.splice(0)) this.release(held);
    }
    if (streamSequence !== undefined) this.options.stored?.({ accountId: turn.target.accountId, subject: turn.storeSubject, bytes: Buffer.byteLength(store.data), finished: store.chunks.at(-1)!.isFinish });
    turn.storing = false;
    if (turn.unstored.length > 0) this.queueStore(turn);
  }

  /** A store that failed: sent again after a pause, unless it has been failing for too long. */
  private failed(store: Store, reason: string): void {
    const now = Date.now();
    if (now - (store.firstSentAt ?? now) >= (this.options.retryWindowMilliseconds ?? 20_000)) {
      this.warnUnstored(reason);
      this.acknowledged(store, undefined);
      return;
    }
    // Everything in flight goes again behind it, in sending order, so the stream keeps the
    // turn's order (stores that succeeded meanwhile are answered again with their sequence).
    this.inFlight.set(store.attempt ?? 0, store);
    this.requeueInFlight();
    // The flush that follows every failure schedules the wake-up at the pause's end.
    this.pausedUntil = now + 250;
  }

  /**
   * Without a chunk stream nothing can be stored: every waiting store is given up as one that
   * failed for too long would be, so a turn whose first chunk waited is released unstored (its
   * held chunks after it) and a turn's finish no longer waits. Stores in flight can only be on
   * an earlier connection (nothing is sent while the stream is not ready): they go too.
   */
  private giveUpStores(): void {
    if (this.inFlight.size > 0) this.requeueInFlight();
    while (this.stores.length > 0) {
      this.warnUnstored('the chunk stream is not available');
      // May queue the turn's next store (its chunks that came meanwhile): given up in turn.
      this.acknowledged(this.stores.shift()!, undefined);
    }
  }

  private checkTimeouts(): void {
    const now = Date.now();
    const timeout = this.options.ackTimeoutMilliseconds ?? 5_000;
    // The map keeps sending order, so the first store that is not late ends the search.
    for (const [attempt, store] of this.inFlight) {
      if (now - (store.sentAt ?? now) < timeout) break;
      this.inFlight.delete(attempt);
      this.failed(store, 'no acknowledgement');
    }
  }

  /** Delivers finish chunks whose turns are stored, and wakes `idle()` waiters. */
  private settle(): void {
    const connection = this.sendable();
    for (const turn of this.finishesWaiting) {
      if (turn.storing || turn.unstored.length > 0 || connection === undefined) continue;
      this.finishesWaiting.delete(turn);
      const finish = turn.finish!;
      if (turn.target.replySubject === undefined) continue;
      connection.publish(turn.target.replySubject, finish.data, { headers: chunkHeaders(typeof turn.base === 'number' ? chunkSequence(turn.base, finish.index) : undefined, turn.target.turnId) });
    }
    if (this.queued() === 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** A wake-up to notice timeouts, and to retry after a failed store. */
  private schedule(milliseconds: number): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.resume();
    }, milliseconds);
    this.timer.unref();
  }

  private warnUnstored(reason: string): void {
    if (this.warnedUnstored) return;
    this.warnedUnstored = true;
    this.options.logger.warn({ component: 'nats-gateway', error: reason }, 'could not store a chunk for replay; the client gets it, replay will not');
  }
}
