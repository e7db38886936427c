import { jetstreamManager } from '@nats-io/jetstream';
import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../core/logger.js';
import { ChunkPublisher } from './chunk-publisher.js';
import { createChunkRetention } from './chunk-retention.js';
import { replayEndHeader } from './nats-protocol.js';
import { defaultReplayRetention, ensureReplayStream, replayStreamName, serveReplay, type ChunkTarget } from './stream-replay.js';
import { startTestNats, type TestNats } from './test-support/nats-test-support.js';

const kib = 1024;
/** The whole stream: small, so the attacker below writes three times what it holds. */
const streamBytes = 2048 * kib;
const shareBytes = 256 * kib;

/** A turn of `count` chunks of about `deltaBytes` each, ending with its finish. */
function turnChunks(count: number, deltaBytes: number): UIMessageChunk[] {
  return [{ type: 'start' }, ...Array.from({ length: count }, (): UIMessageChunk => ({ type: 'text-delta', id: 'text', delta: 'x'.repeat(deltaBytes) })), { type: 'finish' }];
}

describe('the chunk stream shared between accounts (a real nats-server)', () => {
  let nats: TestNats;

  beforeAll(async () => {
    nats = await startTestNats('chunk-retention-test');
    await ensureReplayStream(nats.connection, { ...defaultReplayRetention, maxBytes: streamBytes, maxMessageBytes: 64 * kib });
  });

  afterAll(() => nats?.stop());

  /** The chunks a replay of one turn sends (none when the stream no longer holds it). */
  async function replayedChunks(target: ChunkTarget): Promise<number> {
    let chunks = 0;
    await serveReplay({
      connection: nats.connection,
      request: { accountId: target.accountId, agentId: target.agentId, conversationKey: target.conversationKey, turnId: target.turnId, afterSequence: 0 },
      send: (_data, headers) => {
        if (!headers.has(replayEndHeader)) chunks += 1;
      },
      idleTimeoutMilliseconds: 5_000,
      endsAt: (chunk) => (chunk as { type?: unknown } | undefined)?.type === 'finish',
    });
    return chunks;
  }

  it('an account writing three times the stream loses its own oldest turns; another account’s turn stays replayable', async () => {
    // As the gateway composes them: the publisher tells the share of every store, the share purges through the purger.
    const shared = createChunkRetention({ retention: defaultReplayRetention, settings: { maxBytesPerAccount: shareBytes, maxTrackedTurns: 10_000 }, connection: () => nats.connection, logger: silentLogger });
    const publisher = new ChunkPublisher({ connection: () => nats.connection, ready: () => true, logger: silentLogger, maxStoreBytes: 16 * kib, stored: (store) => shared.stored(store) });
    const publishTurn = async (target: ChunkTarget, chunks: UIMessageChunk[]) => {
      for (const chunk of chunks) publisher.publish(target, chunk);
      await publisher.idle();
      await shared.idle();
    };

    const victim: ChunkTarget = { accountId: 'acc_victim', agentId: 'agent', conversationKey: 'quiet', turnId: 'turn_victim' };
    const victimChunks = turnChunks(20, 200);
    await publishTurn(victim, victimChunks);
    expect(await replayedChunks(victim)).toBe(victimChunks.length);

    // 48 turns of 128 KiB: 6 MiB, three times what the stream holds, 24 times the attacker's share.
    const attackerTurns = Array.from({ length: 48 }, (_, index): ChunkTarget => ({ accountId: 'acc_attacker', agentId: 'agent', conversationKey: 'flood', turnId: `turn_attacker_${index}` }));
    for (const target of attackerTurns) await publishTurn(target, turnChunks(16, 8 * kib));

    // Without the share the stream discards its oldest messages once full: the victim's turn first.
    expect(await replayedChunks(victim)).toBe(victimChunks.length);
    expect(await replayedChunks(attackerTurns[0]!)).toBe(0);
    expect(await replayedChunks(attackerTurns.at(-1)!)).toBe(18);
    const state = (await (await jetstreamManager(nats.connection)).streams.info(replayStreamName)).state;
    expect(state.bytes).toBeLessThanOrEqual(shareBytes + 64 * kib);
  });
});
