import { headers as natsHeaders, nanos, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core';
import { setTimeout as sleep } from 'node:timers/promises';
import { DiscardPolicy, jetstream, jetstreamManager, JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import { isFinalChunk, type NatsReplayRequest, replayEndHeader, replaySubjectRoot, sequenceHeader, turnIdHeader } from './nats-protocol.js';
import { conversationReplaySubject, turnReplaySubject } from './nats-subjects.js';

/** The JetStream stream that keeps every chunk of NATS turns for replay. */
export const replayStreamName = 'HARNESS_CHUNKS';

/** How much the chunk stream keeps; whatever is older or beyond a limit is discarded first. */
export interface ReplayRetention {
  /** Chunks older than this are dropped. Default 24 hours. */
  maxAgeMilliseconds: number;
  /** Stored messages per turn (one subject per turn; a message holds one or more chunks). Default 20,000. */
  maxMessagesPerSubject: number;
  /** The whole stream. Default 256 MiB (file storage; nats-server's own cap is 1 GiB). */
  maxBytes: number;
  /** One stored message (its stores are kept below it). Default 1 MiB (nats-server's default max payload). */
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

/** The replicas the chunk stream asks for in a cluster of at least three servers. */
export const clusteredReplicas = 3;

/** The server the service is connected to runs without JetStream: there is no chunk stream, so no replay. */
export class JetStreamNotEnabledError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JetStreamNotEnabledError';
  }
}

/** `JetStream not enabled for account` (10039) and `JetStream not enabled` (10076). */
const jetStreamDisabledCodes = new Set([10039, 10076]);

/**
 * True for an answer that says JetStream is off for the service's account or server ("no
 * responders" on the API, `JetStream not enabled`): asking again changes nothing. Unlike "JetStream
 * system temporarily unavailable" or "insufficient resources" (also status 503), which a
 * cluster that is still electing its leaders or learning its peers gives for a while.
 */
export function isJetStreamDisabledError(error: unknown): boolean {
  // The client's `JetStreamNotEnabled` (not exported by @nats-io/jetstream) is known by its name.
  if (error instanceof Error && (error.name === 'JetStreamNotEnabled' || error instanceof JetStreamNotEnabledError)) return true;
  if (error instanceof JetStreamApiError && jetStreamDisabledCodes.has(error.code)) return true;
  return /jetstream (is )?not enabled/i.test((error as Error | undefined)?.message ?? '');
}

/**
 * Creates the chunk stream, or brings an existing one to this retention, and returns its
 * replica count. On a cluster (the server names one) the stream keeps 3 replicas, so losing
 * one server loses no chunk; where the cluster has fewer servers than that nats-server refuses,
 * and the stream keeps 1. Other failures are asked again for up to 15 s. A server without
 * JetStream (its INFO says so, or the API says it is not enabled) fails at once: on a cluster
 * without JetStream the API requests are not even refused, they time out.
 */
export async function ensureReplayStream(connection: NatsConnection, retention: ReplayRetention = defaultReplayRetention): Promise<number> {
  if (connection.info !== undefined && connection.info.jetstream !== true) {
    throw new JetStreamNotEnabledError('the NATS server runs without JetStream (nats-server -js, or jetstream {} in its config)');
  }
  // No account-info round trip first: on a cluster still electing its JetStream leader it fails
  // like any other call, and the calls below are retried. A cluster drops the API requests that
  // come before its leader is elected (a fraction of a second after it starts), so they time out
  // sooner than the client's default 5 s, and are asked again.
  const manager = await jetstreamManager(connection, { checkAPI: false, timeout: apiTimeoutMilliseconds });
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
  };
  const clustered = connection.info?.cluster !== undefined && connection.info.cluster !== '';
  // Right after a cluster starts, JetStream may not know every peer yet and refuse 3 replicas
  // for a while ("insufficient resources"): keep asking before settling for 1. A busy server may
  // let a request time out: asked again too.
  const deadline = Date.now() + patienceMilliseconds;
  for (;;) {
    const replicas = clustered ? clusteredReplicas : 1;
    try {
      return await putReplayStream(manager, config, replicas);
    } catch (error) {
      if (isJetStreamDisabledError(error)) throw error;
      if (Date.now() >= deadline) {
        if (!clustered) throw error;
        await putReplayStream(manager, config, 1).catch(() => {
          throw error;
        });
        return 1;
      }
      await sleep(500);
    }
  }
}

/** How long one JetStream API request of `ensureReplayStream` may take. */
const apiTimeoutMilliseconds = 1_000;

/** How long a gateway keeps asking (on a cluster: for 3 replicas, before it settles for 1). */
const patienceMilliseconds = 15_000;

async function putReplayStream(manager: JetStreamManager, config: Partial<StreamConfig>, replicas: number): Promise<number> {
  let exists = true;
  try {
    const info = await manager.streams.info(replayStreamName);
    // A cluster member that asks for fewer replicas than the stream has leaves it as it is.
    if (replicas === 1 && info.config.num_replicas > 1) return info.config.num_replicas;
  } catch {
    exists = false;
  }
  if (exists) await manager.streams.update(replayStreamName, { ...config, num_replicas: replicas });
  else {
    try {
      await manager.streams.add({ name: replayStreamName, ...config, num_replicas: replicas });
    } catch (error) {
      // Another replica created it meanwhile: bring it to this configuration instead.
      if (!/already in use/i.test((error as Error).message)) throw error;
      await manager.streams.update(replayStreamName, { ...config, num_replicas: replicas });
    }
  }
  return replicas;
}

/** Where one turn's chunks go: the client's reply subject (none for a turn streamed over SSE), and the turn's replay subject. */
export interface ChunkTarget {
  replySubject?: string;
  accountId: string;
  agentId: string;
  conversationKey: string;
  turnId: string;
}

/**
 * Chunk sequences (`Harness-Sequence`) are the stream sequence of the turn's first chunk
 * times a million, plus the chunk's index in the turn. A chunk's sequence is then known as soon
 * as its turn's first chunk is stored, without waiting for its own store; it increases within
 * a turn and from one turn of a conversation to the next (a later turn's first chunk is stored
 * after every chunk of the earlier one). A turn has fewer than a million chunks.
 */
export const chunksPerTurnBase = 1_000_000;

/** The `Harness-Sequence` of chunk `index` of a turn whose first chunk has stream sequence `turnBase`. */
export function chunkSequence(turnBase: number, index: number): number {
  return turnBase * chunksPerTurnBase + index;
}

/** The stream sequence of the first chunk of the turn a `Harness-Sequence` belongs to. */
export function turnBaseOf(sequence: number): number {
  return Math.floor(sequence / chunksPerTurnBase);
}

/** The `Harness-Sequence` of a stored chunk: from its header, or (a turn's first chunk, stored before its base was known) its own stream sequence. */
export function storedChunkSequence(streamSequence: number, header: string | undefined): number {
  const stored = header === undefined || header === '' ? Number.NaN : Number(header);
  return Number.isSafeInteger(stored) ? stored : chunkSequence(streamSequence, 0);
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
  /**
   * Whether a chunk ends the answer (when nothing is stored after it). Default: a final finish
   * (`isFinalChunk`), so a NATS replay goes on into the continuation after `waiting_async_tools`;
   * the SSE resume of one turn ends at any finish of that turn.
   */
  endsAt?: (chunk: unknown) => boolean;
}

function parseStored(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The chunks of one stored message: consecutive chunks of one turn, one JSON document a line
 * (a message of one chunk, as every message was before stores carried several, is one line).
 */
export function storedChunks(data: Uint8Array): string[] {
  return new TextDecoder().decode(data).split('\n');
}

/**
 * How long a replay waits for a message the stream says is there before it drops the consumer
 * and starts a new one after the last chunk sent. Right after a NATS server is lost, a consumer
 * created while the stream's leader moved can stay silent although messages are pending.
 */
const stallMilliseconds = 5_000;
/** New consumers a replay starts after stalls before it gives up (the client then asks again). */
const maxConsumers = 5;

/**
 * Sends the stored chunks after `afterSequence`, in order, then the live ones as they are
 * stored, until a final finish chunk with nothing stored after it; then the end marker (an
 * empty message with `Harness-Replay-End: <last sequence>`). When the client already has
 * everything up to a final finish, only the end marker is sent. A turn that never finishes
 * (the service stopped mid-turn) ends the answer after the idle timeout. A consumer that stalls
 * while messages are pending is replaced by one that starts after the last chunk sent.
 */
export async function serveReplay(options: ReplayOptions): Promise<void> {
  const progress = { lastSequence: options.request.afterSequence };
  for (let consumers = 1; ; consumers += 1) {
    const outcome = await replayWithOneConsumer(options, progress);
    if (outcome === 'ended') break;
    if (consumers >= maxConsumers) throw new Error(`the chunk stream delivered nothing for ${stallMilliseconds} ms although messages were pending, ${maxConsumers} times`);
  }
  options.send('', replayEndHeaders(progress.lastSequence));
}

/** One consumer's part of a replay: `stalled` when it went silent with messages pending. */
async function replayWithOneConsumer(options: ReplayOptions, progress: { lastSequence: number }): Promise<'ended' | 'stalled'> {
  const { request, connection } = options;
  const afterSequence = progress.lastSequence;
  const base = conversationReplaySubject(request.accountId, request.agentId, request.conversationKey);
  const filter = request.turnId === undefined ? `${base}.*` : turnReplaySubject(request.accountId, request.agentId, request.conversationKey, request.turnId);
  const consumer = await jetstream(connection).consumers.get(replayStreamName, {
    filter_subjects: filter,
    opt_start_seq: Math.max(1, turnBaseOf(afterSequence)),
    inactive_threshold: Math.max(options.idleTimeoutMilliseconds * 2, 30_000),
  });
  try {
    const info = await consumer.info(true);
    if (info.num_pending === 0) return 'ended';
    const messages = await consumer.consume({ max_messages: 512 });
    const iterator = messages[Symbol.asyncIterator]();
    // A silence ends the wait whatever the client library does meanwhile: after a server loss an
    // ordered consumer can keep resetting itself, and its iterator then neither yields nor ends.
    let silence: { timer?: NodeJS.Timeout; resolve?: (outcome: 'stalled' | 'idle') => void } = {};
    const nextMessage = (pending: boolean) =>
      Promise.race([
        iterator.next(),
        new Promise<'stalled' | 'idle'>((resolve) => {
          silence = { resolve, timer: setTimeout(() => resolve(pending ? 'stalled' : 'idle'), pending ? stallMilliseconds : options.idleTimeoutMilliseconds) };
        }),
      ]);
    const aborted = (): void => silence.resolve?.('idle');
    options.signal?.addEventListener('abort', aborted, { once: true });
    let outcome: 'ended' | 'stalled' = 'ended';
    try {
      // While the stream has messages pending, a silence is a stall; otherwise the turn is still
      // running and the idle timeout applies.
      let pending = true;
      let delivered = 0;
      for (;;) {
        if (options.signal?.aborted) break;
        const next = await nextMessage(pending);
        clearTimeout(silence.timer);
        if (next === 'stalled') {
          outcome = 'stalled';
          break;
        }
        if (next === 'idle' || next.done === true) break;
        const message = next.value;
        delivered += 1;
        // Pending by the message's own count, or by the count the consumer started with: after a
        // leader change a consumer has been seen to report none pending with stored messages left.
        pending = message.info.pending > 0 || delivered < info.num_pending;
        // The header is the sequence of the message's first chunk; the others follow it one by one.
        const firstSequence = storedChunkSequence(message.seq, message.headers?.get(sequenceHeader));
        const chunks = storedChunks(message.data);
        const final = message.info.pending === 0 && (options.endsAt ?? isFinalChunk)(parseStored(chunks.at(-1)!));
        const lastInMessage = firstSequence + chunks.length - 1;
        // The replay starts at the first chunk of the client's last turn: what it already has is skipped.
        if (final && lastInMessage === afterSequence) break;
        if (lastInMessage <= afterSequence) continue;
        const turnId = message.headers?.get(turnIdHeader) || message.subject.slice(message.subject.lastIndexOf('.') + 1);
        for (let index = Math.max(0, afterSequence + 1 - firstSequence); index < chunks.length; index += 1) {
          options.send(chunks[index]!, chunkHeaders(firstSequence + index, turnId));
        }
        progress.lastSequence = lastInMessage;
        if (final) break;
      }
    } finally {
      clearTimeout(silence.timer);
      options.signal?.removeEventListener('abort', aborted);
      void messages.close().catch(() => undefined);
    }
    return outcome;
  } finally {
    // Not awaited: a JetStream that is electing leaders must not hold the answer's end.
    void consumer.delete().catch(() => undefined);
  }
}
