import { setTimeout as sleep } from 'node:timers/promises';
import { headers as natsHeaders, nanos, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core';
import { DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType, type JetStreamClient, type PubAck } from '@nats-io/jetstream';
import type { UIMessageChunk } from 'ai';
import type { Logger } from '../core/logger.js';
import { isFinalChunk, type NatsReplayRequest, replayEndHeader, replaySubjectRoot, sequenceHeader, turnIdHeader } from './nats-protocol.js';
import { conversationReplaySubject, turnReplaySubject } from './nats-subjects.js';

/** The JetStream stream that keeps every chunk of NATS turns for replay. */
export const replayStreamName = 'HARNESS_CHUNKS';

/** How much the chunk stream keeps; whatever is older or beyond a limit is discarded first. */
export interface ReplayRetention {
  /** Chunks older than this are dropped. Default 24 hours. */
  maxAgeMilliseconds: number;
  /** Per turn (one subject per turn). Default 20,000 chunks. */
  maxMessagesPerSubject: number;
  /** The whole stream. Default 256 MiB (file storage; nats-server's own cap is 1 GiB). */
  maxBytes: number;
  /** One chunk. Default 1 MiB (nats-server's default max payload). */
  maxMessageBytes: number;
  /** Repeated stores of one chunk (a retry after a lost connection) within this window are kept once. Default 2 minutes. */
  duplicateWindowMilliseconds: number;
}

export const defaultReplayRetention: ReplayRetention = {
  maxAgeMilliseconds: 24 * 60 * 60 * 1000,
  maxMessagesPerSubject: 20_000,
  maxBytes: 256 * 1024 * 1024,
  maxMessageBytes: 1024 * 1024,
  duplicateWindowMilliseconds: 2 * 60 * 1000,
};

/** Creates the chunk stream, or brings an existing one to this retention. */
export async function ensureReplayStream(connection: NatsConnection, retention: ReplayRetention = defaultReplayRetention): Promise<void> {
  const manager = await jetstreamManager(connection);
  const config = {
    subjects: [`${replaySubjectRoot}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(retention.maxAgeMilliseconds),
    max_msgs_per_subject: retention.maxMessagesPerSubject,
    max_bytes: retention.maxBytes,
    max_msg_size: retention.maxMessageBytes,
    duplicate_window: nanos(retention.duplicateWindowMilliseconds),
    num_replicas: 1,
  };
  try {
    await manager.streams.info(replayStreamName);
  } catch {
    await manager.streams.add({ name: replayStreamName, ...config });
    return;
  }
  await manager.streams.update(replayStreamName, config);
}

/** Where one turn's chunks go: the client's reply subject, and the turn's replay subject. */
export interface ChunkTarget {
  replySubject: string;
  accountId: string;
  agentId: string;
  conversationKey: string;
  turnId: string;
}

interface Outgoing {
  target: ChunkTarget;
  data: string;
  messageId: string;
}

export interface ChunkPublisherOptions {
  /** The live connection, when there is one. */
  connection(): NatsConnection | undefined;
  /** True once the chunk stream exists on the current connection. */
  ready(): boolean;
  logger: Logger;
  /** Chunks kept while NATS is unreachable; the oldest go first beyond it. Default 50,000. */
  maxQueuedChunks?: number;
}

const batchSize = 256;

/**
 * Publishes a turn's chunks: each is stored in the chunk stream first, and then sent to the
 * client's reply subject with its stream sequence in `Harness-Sequence`, in order. Stores are
 * pipelined (all chunks of a batch go out before the first ack is awaited). While NATS is
 * unreachable the chunks wait in memory and go out, in order, once it is back; each carries a
 * message id, so a store repeated after a lost ack is kept once.
 */
export class ChunkPublisher {
  private readonly queue: Outgoing[] = [];
  private readonly counters = new Map<string, number>();
  private readonly clients = new WeakMap<NatsConnection, JetStreamClient>();
  private pumping = false;
  private warnedUnstored = false;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(private readonly options: ChunkPublisherOptions) {}

  /** Queues one chunk of a turn; it is sent as soon as NATS allows. */
  publish(target: ChunkTarget, chunk: UIMessageChunk): void {
    const index = this.counters.get(target.turnId) ?? 0;
    if (chunk.type === 'finish') this.counters.delete(target.turnId);
    else this.counters.set(target.turnId, index + 1);
    this.queue.push({ target, data: JSON.stringify(chunk), messageId: `${target.turnId}:${index}` });
    const limit = this.options.maxQueuedChunks ?? 50_000;
    if (this.queue.length > limit) {
      const dropped = this.queue.splice(0, this.queue.length - limit);
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

  /** Chunks waiting for NATS. */
  queued(): number {
    return this.queue.length;
  }

  /** Resolves when nothing is queued (tests, shutdown). */
  idle(): Promise<void> {
    if (this.queue.length === 0 && !this.pumping) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Sends what is queued, if NATS is ready; call when it becomes ready. */
  resume(): void {
    if (this.pumping) return;
    this.pumping = true;
    void this.pump()
      .catch((error: unknown) => this.options.logger.error({ component: 'nats-gateway', error: (error as Error).message }, 'publishing chunks failed'))
      .finally(() => {
        this.pumping = false;
        if (this.queue.length === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
        else if (this.sendable() !== undefined) this.resume();
      });
  }

  private sendable(): NatsConnection | undefined {
    const connection = this.options.connection();
    if (connection === undefined || connection.isClosed() || !this.options.ready()) return undefined;
    return connection;
  }

  private client(connection: NatsConnection): JetStreamClient {
    let client = this.clients.get(connection);
    if (client === undefined) {
      client = jetstream(connection);
      this.clients.set(connection, client);
    }
    return client;
  }

  private async pump(): Promise<void> {
    for (;;) {
      const connection = this.sendable();
      if (connection === undefined || this.queue.length === 0) return;
      const client = this.client(connection);
      const batch = this.queue.slice(0, batchSize);
      const acks = batch.map((item) => {
        const { accountId, agentId, conversationKey, turnId } = item.target;
        const headers = natsHeaders();
        headers.set(turnIdHeader, turnId);
        return client
          .publish(turnReplaySubject(accountId, agentId, conversationKey, turnId), item.data, { msgID: item.messageId, headers, timeout: 5_000 })
          .then((ack): PubAck | Error => ack, (error: unknown): PubAck | Error => (error instanceof Error ? error : new Error(String(error))));
      });
      let sent = 0;
      let stalled = false;
      for (const [position, item] of batch.entries()) {
        const ack = await acks[position]!;
        if (!(ack instanceof Error)) {
          connection.publish(item.target.replySubject, item.data, { headers: chunkHeaders(ack.seq, item.target.turnId) });
          sent += 1;
          continue;
        }
        if (this.sendable() !== connection) {
          // NATS went away: keep this chunk and the rest for when it is back (the message id
          // keeps a chunk that was stored after all from being stored twice).
          stalled = true;
          break;
        }
        // JetStream refused while the connection works (an outside server without JetStream,
        // a full store): the client still gets the chunk, only replay loses it.
        if (!this.warnedUnstored) {
          this.warnedUnstored = true;
          this.options.logger.warn({ component: 'nats-gateway', error: ack.message }, 'could not store a chunk for replay; sending it unstored');
        }
        connection.publish(item.target.replySubject, item.data, { headers: chunkHeaders(undefined, item.target.turnId) });
        sent += 1;
      }
      this.queue.splice(0, sent);
      if (stalled) {
        await sleep(100);
        return;
      }
    }
  }
}

/** The headers of a chunk sent to a client. */
export function chunkHeaders(sequence: number | undefined, turnId: string): MsgHdrs {
  const headers = natsHeaders();
  if (sequence !== undefined) headers.set(sequenceHeader, String(sequence));
  headers.set(turnIdHeader, turnId);
  return headers;
}

/** The headers of the empty message that ends a replay answer. */
export function replayEndHeaders(lastSequence: number): MsgHdrs {
  const headers = natsHeaders();
  headers.set(replayEndHeader, String(lastSequence));
  return headers;
}

/** A replay request: its body, and the account and agent its subject names. */
export interface ReplayRequest extends NatsReplayRequest {
  accountId: string;
  agentId: string;
}

export interface ReplayOptions {
  connection: NatsConnection;
  request: ReplayRequest;
  /** Sends one message to the client. */
  send(data: string | Uint8Array, headers: MsgHdrs): void;
  /** The answer ends after this long without a chunk. */
  idleTimeoutMilliseconds: number;
  signal?: AbortSignal;
}

function parseStored(data: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(data));
  } catch {
    return undefined;
  }
}

/**
 * Sends the stored chunks after `afterSequence`, in order, then the live ones as they are
 * stored, until a final finish chunk with nothing stored after it; then the end marker (an
 * empty message with `Harness-Replay-End: <last sequence>`). When the client already has
 * everything up to a final finish, only the end marker is sent. A turn that never finishes
 * (the service stopped mid-turn) ends the answer after the idle timeout.
 */
export async function serveReplay(options: ReplayOptions): Promise<void> {
  const { request, connection } = options;
  const base = conversationReplaySubject(request.accountId, request.agentId, request.conversationKey);
  const filter = request.turnId === undefined ? `${base}.*` : turnReplaySubject(request.accountId, request.agentId, request.conversationKey, request.turnId);
  let lastSequence = request.afterSequence;
  const end = (): void => options.send('', replayEndHeaders(lastSequence));
  const consumer = await jetstream(connection).consumers.get(replayStreamName, {
    filter_subjects: filter,
    opt_start_seq: request.afterSequence + 1,
    inactive_threshold: Math.max(options.idleTimeoutMilliseconds * 2, 30_000),
  });
  try {
    const info = await consumer.info(true);
    if (info.num_pending === 0 && (request.afterSequence === 0 || (await endsFinished(connection, request.afterSequence, base, filter)))) {
      end();
      return;
    }
    const messages = await consumer.consume({ max_messages: 512 });
    let timer: NodeJS.Timeout | undefined;
    const stop = (): void => {
      void messages.close();
    };
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(stop, options.idleTimeoutMilliseconds);
    };
    options.signal?.addEventListener('abort', stop, { once: true });
    arm();
    try {
      for await (const message of messages) {
        arm();
        const turnId = message.headers?.get(turnIdHeader) ?? '';
        options.send(message.data, chunkHeaders(message.seq, turnId));
        lastSequence = message.seq;
        if (message.info.pending === 0 && isFinalChunk(parseStored(message.data))) break;
      }
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
      void messages.close();
    }
    end();
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}

/** Whether the chunk at `sequence` is a final finish of this conversation (and so the client has everything). */
async function endsFinished(connection: NatsConnection, sequence: number, base: string, filter: string): Promise<boolean> {
  const manager = await jetstreamManager(connection);
  const stored = await manager.streams.getMessage(replayStreamName, { seq: sequence }).catch(() => null);
  if (stored === null) return false;
  const matches = filter.endsWith('.*') ? stored.subject.startsWith(`${base}.`) : stored.subject === filter;
  return matches && isFinalChunk(parseStored(stored.data));
}
