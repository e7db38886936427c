import { createInbox, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../core/logger.js';
import { ChunkPublisher, type ChunkStreamState } from './chunk-publisher.js';
import { sequenceHeader } from './nats-protocol.js';
import { turnReplaySubject } from './nats-subjects.js';
import { chunkSequence, ensureReplayStream, replayStreamName, serveReplay, storedChunks, turnBaseOf, type ChunkTarget } from './stream-replay.js';
import { startTestNats, type TestNats } from './test-support/nats-test-support.js';

interface Received {
  chunk: UIMessageChunk;
  sequence: number;
}

const chunksOfTurn = (count: number, turn: number): UIMessageChunk[] => [
  { type: 'start' },
  ...Array.from({ length: count - 2 }, (_, index): UIMessageChunk => ({ type: 'text-delta', id: 'text', delta: `turn ${turn} word ${index} ` })),
  { type: 'finish' },
];

describe('ChunkPublisher', () => {
  let nats: TestNats;

  beforeAll(async () => {
    nats = await startTestNats('chunk-publisher-test');
    await ensureReplayStream(nats.connection);
  });

  afterAll(() => nats?.stop());

  /** Publishes whole turns at once (the fastest a turn can produce chunks) and collects what a client gets. */
  async function publishTurns(publisher: ChunkPublisher, turns: UIMessageChunk[][], conversationKey: string): Promise<{ targets: ChunkTarget[]; received: Received[][] }> {
    const targets = turns.map((_, index): ChunkTarget => ({ replySubject: createInbox('_INBOX.test'), accountId: 'acc_test', agentId: 'agent', conversationKey, turnId: `turn_${conversationKey}_${index}` }));
    const received = turns.map((): Received[] => []);
    const finished = targets.map(
      (target, index) =>
        new Promise<void>((resolve) => {
          nats.connection.subscribe(target.replySubject!, {
            callback: (_error, message) => {
              const chunk = message.json<UIMessageChunk>();
              received[index]!.push({ chunk, sequence: Number(message.headers?.get(sequenceHeader)) });
              if (chunk.type === 'finish') resolve();
            },
          });
        }),
    );
    await nats.connection.flush();
    turns.forEach((chunks, index) => chunks.forEach((chunk) => publisher.publish(targets[index]!, chunk)));
    await Promise.all(finished);
    await publisher.idle();
    return { targets, received };
  }

  async function replay(target: ChunkTarget, afterSequence: number): Promise<Received[]> {
    const replayed: Received[] = [];
    await serveReplay({
      connection: nats.connection,
      request: { accountId: target.accountId, agentId: target.agentId, conversationKey: target.conversationKey, turnId: target.turnId, afterSequence },
      send: (data: string | Uint8Array, headers: MsgHdrs) => {
        if (headers.get(sequenceHeader) === '') return; // the end marker
        replayed.push({ chunk: JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data)) as UIMessageChunk, sequence: Number(headers.get(sequenceHeader)) });
      },
      idleTimeoutMilliseconds: 10_000,
    });
    return replayed;
  }

  it('delivers every chunk of fast turns in order, stores them several to a message, and replays each once in order', async () => {
    const turns = [chunksOfTurn(600, 0), chunksOfTurn(600, 1), chunksOfTurn(3, 2)];
    const publisher = new ChunkPublisher({ connection: () => nats.connection, ready: () => true, logger: silentLogger });
    const { targets, received } = await publishTurns(publisher, turns, 'fast');

    for (const [index, chunks] of turns.entries()) {
      expect(received[index]!.map((item) => item.chunk)).toEqual(chunks);
      const base = turnBaseOf(received[index]![0]!.sequence);
      expect(received[index]!.map((item) => item.sequence)).toEqual(chunks.map((_, chunkIndex) => chunkSequence(base, chunkIndex)));
      expect(await replay(targets[index]!, 0)).toEqual(received[index]);
    }
    // Replay after a chunk in the middle of a stored message starts right after it.
    const middle = received[0]![300]!.sequence;
    expect(await replay(targets[0]!, middle)).toEqual(received[0]!.slice(301));
    // A client that has the whole turn gets only the end marker.
    expect(await replay(targets[1]!, received[1]!.at(-1)!.sequence)).toEqual([]);

    const stream = await (await jetstreamManager(nats.connection)).streams.info(replayStreamName);
    expect(stream.state.messages).toBeLessThan(turns.flat().length);
  });

  it('keeps each stored message within maxStoreBytes, unless one chunk alone is larger', async () => {
    const maxStoreBytes = 200;
    const turn = chunksOfTurn(100, 3);
    turn.splice(50, 0, { type: 'text-delta', id: 'text', delta: 'x'.repeat(400) });
    const publisher = new ChunkPublisher({ connection: () => nats.connection, ready: () => true, logger: silentLogger, maxStoreBytes });
    const { targets, received } = await publishTurns(publisher, [turn], 'bounded');
    expect(received[0]!.map((item) => item.chunk)).toEqual(turn);

    const manager = await jetstreamManager(nats.connection);
    const consumer = await manager.consumers.add(replayStreamName, { filter_subject: turnReplaySubject('acc_test', 'agent', 'bounded', targets[0]!.turnId), ack_policy: AckPolicy.None });
    const stored = await jetstream(nats.connection).consumers.get(replayStreamName, consumer.name);
    const sizes: { chunks: number; bytes: number }[] = [];
    for (let count = 0; sizes.reduce((total, size) => total + size.chunks, 0) < turn.length && count < turn.length; count += 1) {
      const message = await stored.next({ expires: 5_000 });
      if (message === null) break;
      sizes.push({ chunks: storedChunks(message.data).length, bytes: message.data.length });
    }
    expect(sizes.reduce((total, size) => total + size.chunks, 0)).toBe(turn.length);
    expect(sizes.every((size) => size.chunks === 1 || size.bytes <= maxStoreBytes)).toBe(true);
    await manager.consumers.delete(replayStreamName, consumer.name);
  });

  /** A client (on `client`, the test's connection unless given) subscribed to a target's reply subject: the chunks it gets, each with its `Harness-Sequence` header (if any). */
  async function listen(target: ChunkTarget, client: NatsConnection = nats.connection): Promise<{ received: { chunk: UIMessageChunk; sequence?: number }[]; finished: Promise<void> }> {
    const received: { chunk: UIMessageChunk; sequence?: number }[] = [];
    const finished = new Promise<void>((resolve) => {
      client.subscribe(target.replySubject!, {
        callback: (_error, message) => {
          const header = message.headers?.get(sequenceHeader);
          received.push({ chunk: message.json<UIMessageChunk>(), ...(header ? { sequence: Number(header) } : {}) });
          if (received.at(-1)!.chunk.type === 'finish') resolve();
        },
      });
    });
    await client.flush();
    return { received, finished };
  }

  const targetOf = (turnId: string): ChunkTarget => ({ replySubject: createInbox('_INBOX.test'), accountId: 'acc_test', agentId: 'agent', conversationKey: 'stream-state', turnId });

  it('holds a turn that starts while the chunk stream is being prepared, then stores and sends all of it once it is ready', async () => {
    let state: ChunkStreamState = 'preparing';
    const publisher = new ChunkPublisher({ connection: () => nats.connection, ready: () => true, streamState: () => state, logger: silentLogger });
    const target = targetOf('turn_prepared');
    const client = await listen(target);
    const turn = chunksOfTurn(20, 6);
    for (const chunk of turn) publisher.publish(target, chunk);
    // Nothing is stored yet, so nothing is sent: the first chunk waits for its store. (Whatever
    // the publisher had sent on this connection would be in before the flush's answer.)
    await nats.connection.flush();
    expect(client.received).toEqual([]);
    expect(publisher.queued()).toBeGreaterThan(0);

    state = 'ready';
    publisher.resume();
    await client.finished;
    await publisher.idle();
    expect(client.received.map((item) => item.chunk)).toEqual(turn);
    const base = turnBaseOf(client.received[0]!.sequence!);
    expect(client.received.map((item) => item.sequence)).toEqual(turn.map((_, index) => chunkSequence(base, index)));
    expect(await replay(target, 0)).toEqual(client.received);
  });

  it('sends a turn that waited for a stream that never came unstored and in order, and keeps it unstored when the stream is ready mid-turn', async () => {
    let state: ChunkStreamState = 'preparing';
    const publisher = new ChunkPublisher({ connection: () => nats.connection, ready: () => true, streamState: () => state, logger: silentLogger });
    const waited = targetOf('turn_waited');
    const later = targetOf('turn_later');
    const waitedClient = await listen(waited);
    const laterClient = await listen(later);
    const waitedTurn = chunksOfTurn(30, 7);
    for (const chunk of waitedTurn.slice(0, 10)) publisher.publish(waited, chunk);

    // The gateway gave up waiting (or the server has no JetStream): the held chunks go out unstored.
    state = 'unavailable';
    publisher.resume();
    for (const chunk of waitedTurn.slice(10, 20)) publisher.publish(waited, chunk);
    // The stream is ready now: a turn that starts now is stored; the one that started unstored stays so.
    state = 'ready';
    publisher.resume();
    const laterTurn = chunksOfTurn(10, 8);
    for (const chunk of laterTurn) publisher.publish(later, chunk);
    for (const chunk of waitedTurn.slice(20)) publisher.publish(waited, chunk);

    await Promise.all([waitedClient.finished, laterClient.finished]);
    await publisher.idle();
    expect(waitedClient.received).toEqual(waitedTurn.map((chunk) => ({ chunk })));
    expect(laterClient.received.map((item) => item.chunk)).toEqual(laterTurn);
    expect(laterClient.received.every((item) => item.sequence !== undefined)).toBe(true);
    expect(await replay(waited, 0)).toEqual([]);
    expect(await replay(later, 0)).toEqual(laterClient.received);
  });

  it('gives up a store whose acknowledgement never comes (sent to a server just before it died), and still delivers the finish', async () => {
    // A server without the chunk stream, where a subscriber takes every store and never answers:
    // the store is neither acknowledged nor refused, as when its server is killed with it in flight.
    const silentNats = await startTestNats('chunk-publisher-silent');
    const silent = silentNats.connection;
    try {
      silent.subscribe('harness.replay.>', { callback: () => undefined });
      const target: ChunkTarget = { replySubject: createInbox('_INBOX.test'), accountId: 'acc_test', agentId: 'agent', conversationKey: 'silent', turnId: 'turn_silent' };
      const { received, finished } = await listen(target, silent);
      const publisher = new ChunkPublisher({ connection: () => silent, ready: () => true, logger: silentLogger, ackTimeoutMilliseconds: 300, retryWindowMilliseconds: 1_000 });
      const turn = chunksOfTurn(5, 4);
      for (const chunk of turn) publisher.publish(target, chunk);
      await finished;
      await publisher.idle();
      expect(received.map((item) => item.chunk)).toEqual(turn);
    } finally {
      await silentNats.stop();
    }
  });

  it('keeps retrying stores that fail while the chunk stream is unavailable, and stores the whole turn once it is back', async () => {
    // A server whose chunk stream is created late: until then every store is refused (503), as
    // while the stream's leader is being elected after a server was lost.
    const lateNats = await startTestNats('chunk-publisher-late');
    const late = lateNats.connection;
    try {
      const target: ChunkTarget = { replySubject: createInbox('_INBOX.test'), accountId: 'acc_test', agentId: 'agent', conversationKey: 'late', turnId: 'turn_late' };
      const { received, finished } = await listen(target, late);
      const publisher = new ChunkPublisher({ connection: () => late, ready: () => true, logger: silentLogger });
      const turn = chunksOfTurn(20, 5);
      for (const chunk of turn.slice(0, 10)) publisher.publish(target, chunk);
      // Refusals come back while the pause after each one and the wake-ups interleave.
      await new Promise((resolve) => setTimeout(resolve, 1_300));
      for (const chunk of turn.slice(10)) publisher.publish(target, chunk);
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(received).toEqual([]);
      await ensureReplayStream(late);
      await finished;
      await publisher.idle();
      expect(received.map((item) => item.chunk)).toEqual(turn);
    } finally {
      await lateNats.stop();
    }
  });
});
