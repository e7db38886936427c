import { createInbox, headers as natsHeaders, type Msg, type NatsConnection, type Subscription } from '@nats-io/nats-core';
import type { UIMessageChunk } from 'ai';
import type { Logger } from '../core/logger.js';
import { turnIdHeader } from './nats-protocol.js';
import { turnReplaySubject } from './nats-subjects.js';
import { FirstInFirstOut } from './first-in-first-out.js';
import { chunkHeaders, type ChunkTarget } from './stream-replay.js';

export interface ChunkPublisherOptions {
  /** The live connection, when there is one. */
  connection(): NatsConnection | undefined;
  /** True once the gateway is set up on the current connection. */
  ready(): boolean;
  /**
   * True when the chunk stream exists on the current connection. While false the chunks go
   * to the client unstored (an outside server without JetStream); default: always true.
   */
  stored?(): boolean;
  logger: Logger;
  /** Chunks kept while NATS is unreachable; the oldest go first beyond it. Default 50,000. */
  maxQueuedChunks?: number;
  /** Stores awaiting their acknowledgement at once. Default 4,096. */
  window?: number;
  /** A store without an answer after this long is sent again. Default 5 s. */
  ackTimeoutMilliseconds?: number;
  /** How long a chunk may keep failing to be stored (a stream leader being elected) before it is sent unstored. Default 20 s. */
  retryWindowMilliseconds?: number;
}

interface Outgoing {
  target: ChunkTarget;
  /** The turn's replay subject (computed once per turn). */
  storeSubject: string;
  data: string;
  messageId: string;
  /** When the first store of this chunk was sent. */
  firstSentAt?: number;
  sentAt?: number;
  /** The reply id of the store in flight; answers to any other id are stale. */
  attempt?: number;
  outcome?: { sequence: number } | { error: string };
}

const defaultWindow = 4096;

const sequencePattern = /"seq":(\d+)/;

function outcomeOf(message: Msg): { sequence: number } | { error: string } {
  if (message.headers?.hasError) return { error: `${message.headers.code} ${message.headers.description}` };
  const text = message.string();
  // The common answer, read without a JSON parse: {"stream":"HARNESS_CHUNKS","seq":42} (maybe with "duplicate":true).
  const sequence = text.includes('"error"') ? null : sequencePattern.exec(text);
  if (sequence !== null) return { sequence: Number(sequence[1]) };
  try {
    const answer = message.json<{ seq?: number; error?: { description?: string } }>();
    if (typeof answer.seq === 'number') return { sequence: answer.seq };
    return { error: answer.error?.description ?? 'no sequence in the store acknowledgement' };
  } catch {
    return { error: 'the store acknowledgement is not JSON' };
  }
}

/**
 * Publishes a turn's chunks: each is stored in the chunk stream and then sent to the
 * client's reply subject with its stream sequence in `Harness-Sequence`, in the order the
 * turn produced them. Stores are pipelined: up to `window` go out as plain publishes whose
 * acknowledgements come back on one inbox subscription, and the publisher never waits for one
 * before sending the next; a chunk goes to the client as soon as it and every chunk before it
 * are stored, so a client that sees a turn's finish can replay the whole turn.
 *
 * While NATS is unreachable the chunks wait in memory and go out, in order, once it is back;
 * every store carries `Nats-Msg-Id`, so a store repeated after a lost answer is kept once
 * (JetStream answers with the first sequence). A store that fails while the connection works
 * (a stream leader being elected after a server was lost) is sent again, with the chunks
 * behind it, for up to `retryWindowMilliseconds`; only then does the client get it unstored.
 */
export class ChunkPublisher {
  private readonly queue = new FirstInFirstOut<Outgoing>();
  private readonly inFlight = new FirstInFirstOut<Outgoing>();
  private readonly byAttempt = new Map<number, Outgoing>();
  private readonly counters = new Map<string, { next: number; storeSubject: string }>();
  private readonly idleWaiters: (() => void)[] = [];
  private acks: { connection: NatsConnection; prefix: string; subscription: Subscription } | undefined;
  private nextAttempt = 1;
  private timer: NodeJS.Timeout | undefined;
  private warnedUnstored = false;
  /** After a failed store, nothing is sent before this time (a leader election takes a moment). */
  private pausedUntil = 0;

  constructor(private readonly options: ChunkPublisherOptions) {}

  /** Queues one chunk of a turn; it is sent as soon as NATS allows. */
  publish(target: ChunkTarget, chunk: UIMessageChunk): void {
    let turn = this.counters.get(target.turnId);
    if (turn === undefined) {
      turn = { next: 0, storeSubject: turnReplaySubject(target.accountId, target.agentId, target.conversationKey, target.turnId) };
      this.counters.set(target.turnId, turn);
    }
    const index = turn.next;
    turn.next += 1;
    if (chunk.type === 'finish') this.counters.delete(target.turnId);
    this.queue.push({ target, storeSubject: turn.storeSubject, data: JSON.stringify(chunk), messageId: `${target.turnId}:${index}` });
    const limit = this.options.maxQueuedChunks ?? 50_000;
    if (this.queue.length > limit) {
      const dropped = this.queue.dropOldest(this.queue.length - limit);
      this.options.logger.warn({ component: 'nats-gateway', dropped: dropped.length }, 'NATS has been unreachable too long: dropped the oldest queued chunks');
    }
    this.resume();
  }

  /** Sends a chunk that belongs to no turn (a refused request), unstored; dropped while NATS is down. */
  publishUnstored(replySubject: string, chunk: UIMessageChunk): void {
    const connection = this.options.connection();
    if (connection === undefined || connection.isClosed()) return;
    connection.publish(replySubject, JSON.stringify(chunk));
  }

  /** Chunks not yet delivered to their client. */
  queued(): number {
    return this.queue.length + this.inFlight.length;
  }

  /** Resolves when every chunk has been delivered (tests, shutdown). */
  idle(): Promise<void> {
    if (this.queued() === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Sends what is queued, if NATS is ready; call when it becomes ready. */
  resume(): void {
    try {
      this.fill();
    } catch (error) {
      this.options.logger.error({ component: 'nats-gateway', error: (error as Error).message }, 'publishing chunks failed');
    }
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
        this.answered(Number(message.subject.slice(prefix.length + 1)), outcomeOf(message));
      },
    });
    this.acks = { connection, prefix, subscription };
    return prefix;
  }

  /** Puts every store in flight back at the front of the queue, in order, to be sent again. */
  private requeueInFlight(): void {
    const inFlight = this.inFlight.takeAll();
    for (const item of inFlight) {
      if (item.attempt !== undefined) this.byAttempt.delete(item.attempt);
      item.attempt = undefined;
      item.outcome = undefined;
    }
    this.queue.unshiftAll(inFlight);
  }

  private fill(): void {
    const connection = this.sendable();
    if (connection === undefined) return;
    if (Date.now() < this.pausedUntil) {
      this.schedule(this.pausedUntil - Date.now());
      return;
    }
    const stored = this.options.stored?.() ?? true;
    const prefix = stored ? this.ackPrefix(connection) : undefined;
    const window = this.options.window ?? defaultWindow;
    const now = Date.now();
    while (this.queue.length > 0 && this.inFlight.length < window) {
      const item = this.queue.shift()!;
      if (prefix === undefined) {
        this.warnUnstored('the chunk stream is not available');
        this.deliver(connection, item, undefined);
        continue;
      }
      const attempt = this.nextAttempt++;
      const headers = natsHeaders();
      headers.set('Nats-Msg-Id', item.messageId);
      headers.set(turnIdHeader, item.target.turnId);
      item.attempt = attempt;
      item.sentAt = now;
      item.firstSentAt ??= now;
      this.byAttempt.set(attempt, item);
      this.inFlight.push(item);
      connection.publish(item.storeSubject, item.data, { headers, reply: `${prefix}.${attempt}` });
    }
    this.deliverSettled();
  }

  private answered(attempt: number, outcome: { sequence: number } | { error: string }): void {
    const item = this.byAttempt.get(attempt);
    if (item === undefined) return;
    this.byAttempt.delete(attempt);
    item.outcome = outcome;
    this.deliverSettled();
    this.fill();
  }

  /** Delivers the stored chunks at the head of the line; a failed head is stored again with everything behind it. */
  private deliverSettled(): void {
    const connection = this.sendable();
    while (connection !== undefined && this.inFlight.length > 0) {
      const head = this.inFlight.first()!;
      const now = Date.now();
      if (head.outcome === undefined && now - (head.sentAt ?? now) < (this.options.ackTimeoutMilliseconds ?? 5_000)) break;
      if (head.outcome !== undefined && 'sequence' in head.outcome) {
        this.inFlight.shift();
        this.deliver(connection, head, head.outcome.sequence);
        continue;
      }
      const reason = head.outcome?.error ?? 'no acknowledgement';
      if (now - (head.firstSentAt ?? now) >= (this.options.retryWindowMilliseconds ?? 20_000)) {
        this.inFlight.shift();
        this.warnUnstored(reason);
        this.deliver(connection, head, undefined);
        continue;
      }
      // Stored again in order after a pause; the message ids keep chunks that were stored after all from being kept twice.
      this.requeueInFlight();
      this.pausedUntil = now + 250;
      this.schedule(250);
      return;
    }
    this.schedule(this.inFlight.length > 0 ? 500 : undefined);
    if (this.queued() === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private deliver(connection: NatsConnection, item: Outgoing, sequence: number | undefined): void {
    connection.publish(item.target.replySubject, item.data, { headers: chunkHeaders(sequence, item.target.turnId) });
  }

  /** A wake-up to notice timeouts, and to retry after a failed store. */
  private schedule(milliseconds: number | undefined): void {
    if (milliseconds === undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
      return;
    }
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.deliverSettled();
      this.resume();
    }, milliseconds);
    this.timer.unref();
  }

  private warnUnstored(reason: string): void {
    if (this.warnedUnstored) return;
    this.warnedUnstored = true;
    this.options.logger.warn({ component: 'nats-gateway', error: reason }, 'could not store a chunk for replay; sending it unstored');
  }
}
