import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream';
import type { UIMessageChunk } from 'ai';
import type { ChunkLog, ConversationAddress, LoggedChunk, LoggedTurnState, ReadTurnOptions, TurnAddress } from '../core/turns/chunk-log.js';
import type { ChunkPublisher } from './chunk-publisher.js';
import { replayEndHeader, sequenceHeader } from './nats-protocol.js';
import { conversationReplaySubject, turnReplaySubject } from './nats-subjects.js';
import { chunkSequence, chunksPerTurnBase, replayStreamName, serveReplay, storedChunks, storedChunkSequence, turnBaseOf } from './stream-replay.js';

export interface JetStreamChunkLogOptions {
  /** The gateway's publisher: SSE turns are stored exactly as NATS turns are. */
  publisher: ChunkPublisher;
  /** The live connection, when there is one. */
  connection(): NatsConnection | undefined;
}

/** A turn's position in the stream, read from its last stored message. */
interface StoredTurn extends LoggedTurnState {
  /** The stream sequence of the turn's first chunk. */
  base: number;
}

function isNotFound(error: unknown): boolean {
  return /no message found|not found/i.test((error as Error).message);
}

/** What the last stored message of a turn says of it. */
function storedTurnOf(message: StoredMsg): StoredTurn {
  const first = storedChunkSequence(message.seq, message.header.get(sequenceHeader));
  const chunks = storedChunks(message.data);
  const base = turnBaseOf(first);
  let finished = false;
  try {
    finished = (JSON.parse(chunks.at(-1)!) as { type?: unknown }).type === 'finish';
  } catch {
    // A line that is not JSON ends no turn.
  }
  return { turnId: message.subject.slice(message.subject.lastIndexOf('.') + 1), base, lastIndex: first - base * chunksPerTurnBase + chunks.length - 1, finished };
}

/**
 * The chunk log on the JetStream chunk stream the NATS gateway keeps (`HARNESS_CHUNKS`): an
 * SSE turn's chunks are stored on its turn subject by the gateway's publisher, with the same
 * sequences as a NATS turn's, so any replica can resume any turn, a NATS replay also sends SSE
 * turns, and an SSE resume also reads NATS turns (a chunk's position is its
 * `Harness-Sequence` modulo 1,000,000).
 */
export class JetStreamChunkLog implements ChunkLog {
  private manager: { connection: NatsConnection; manager: Promise<JetStreamManager> } | undefined;

  constructor(private readonly options: JetStreamChunkLogOptions) {}

  append(turn: TurnAddress, chunk: UIMessageChunk): number {
    return this.options.publisher.publish(turn, chunk);
  }

  turnState(turn: TurnAddress): Promise<StoredTurn | undefined> {
    return this.lastStored(turnReplaySubject(turn.accountId, turn.agentId, turn.conversationKey, turn.turnId));
  }

  latestTurn(conversation: ConversationAddress): Promise<LoggedTurnState | undefined> {
    return this.lastStored(`${conversationReplaySubject(conversation.accountId, conversation.agentId, conversation.conversationKey)}.*`);
  }

  async *readTurn(turn: TurnAddress, afterIndex: number, options: ReadTurnOptions = {}): AsyncIterable<LoggedChunk> {
    const state = await this.turnState(turn);
    if (state === undefined) return;
    const queue: (LoggedChunk | 'end' | Error)[] = [];
    let wake: (() => void) | undefined;
    const push = (item: LoggedChunk | 'end' | Error) => {
      queue.push(item);
      wake?.();
    };
    // The replay of one turn (its subject alone), ending at the turn's finish whatever its status.
    void serveReplay({
      connection: this.connected(),
      request: { accountId: turn.accountId, agentId: turn.agentId, conversationKey: turn.conversationKey, turnId: turn.turnId, afterSequence: chunkSequence(state.base, afterIndex) },
      send: (data, headers) => {
        if (headers.has(replayEndHeader)) return;
        const sequence = Number(headers.get(sequenceHeader));
        push({ turnId: turn.turnId, index: sequence - state.base * chunksPerTurnBase, chunk: JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data)) as UIMessageChunk });
      },
      idleTimeoutMilliseconds: options.idleTimeoutMilliseconds ?? 5 * 60 * 1000,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      endsAt: (chunk) => (chunk as { type?: unknown } | undefined)?.type === 'finish',
    }).then(
      () => push('end'),
      (error: unknown) => push(error as Error),
    );
    for (;;) {
      if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      for (const item of queue.splice(0)) {
        if (item === 'end') return;
        if (item instanceof Error) throw item;
        yield item;
      }
    }
  }

  private connected(): NatsConnection {
    const connection = this.options.connection();
    if (connection === undefined || connection.isClosed()) throw new Error('NATS is not connected: the chunk log cannot be read');
    return connection;
  }

  private async lastStored(subject: string): Promise<StoredTurn | undefined> {
    const connection = this.connected();
    if (this.manager?.connection !== connection) this.manager = { connection, manager: jetstreamManager(connection) };
    const manager = await this.manager.manager.catch((error: unknown) => {
      this.manager = undefined;
      throw error;
    });
    try {
      const message = await manager.streams.getMessage(replayStreamName, { last_by_subj: subject });
      return message === null ? undefined : storedTurnOf(message);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}
