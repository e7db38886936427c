import { performance } from 'node:perf_hooks';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { describe, expect, it } from 'vitest';
import { words } from '../../fixtures/model-server/model-plan.js';
import { silentLogger } from '../../server/core/logger.js';
import { connectNats } from '../../server/nats/nats-connection.js';
import { chatSubject, replayRequestSubject } from '../../server/nats/nats-subjects.js';
import { replayStreamName } from '../../server/nats/stream-replay.js';
import { startNatsClusterStack, waitForReplicas } from '../support/nats-cluster-stack.js';
import { finishStatus, TestInbox, textOf, type NatsTestAccount, type ReceivedChunk } from '../support/nats-stack.js';

const turns = 4;
const wordsPerTurn = 400;

const chunksOnly = (messages: ReceivedChunk[]) => messages.filter((message) => message.replayEnd === undefined && message.chunk !== undefined);

/** The chunk stream's leader, once it has one again. */
async function streamLeader(service: NatsConnection): Promise<string> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    // Creating the manager asks JetStream for the account, which fails while its meta leader is being elected.
    const leader = await jetstreamManager(service, { timeout: 2_000 })
      .then((manager) => manager.streams.info(replayStreamName))
      .then(
      (info) => info.cluster?.leader,
      () => undefined,
    );
    if (leader) return leader;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the chunk stream has no leader');
}

/**
 * A replay answer; asked again while JetStream answers with an error or not at all (leaders
 * being elected, the client's own server gone): that is what a client does after a failover.
 */
async function replay(account: NatsTestAccount, connection: NatsConnection, body: Record<string, unknown>): Promise<ReceivedChunk[]> {
  for (let attempt = 1; ; attempt += 1) {
    const inbox = new TestInbox(connection, account.nats.inboxPrefix);
    try {
      await inbox.request(replayRequestSubject(account.accountId, 'echo'), account.secret, body);
      const answer = await inbox.readUntil((message) => message.replayEnd !== undefined, 60_000);
      if (!answer.some((message) => message.chunk?.type === 'error') || attempt >= 10) return chunksOnly(answer);
    } catch (error) {
      if (attempt >= 10) throw error;
    } finally {
      inbox.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('fault: one NATS server of three killed during NATS turns', () => {
  it('lets the turns continue and keeps their replay intact', async () => {
    const stack = await startNatsClusterStack({ replicaCount: 1 });
    const service = await connectNats({ url: stack.cluster.url, ...stack.cluster.serviceCredentials, name: 'fault-inspect', logger: silentLogger });
    try {
      const alice = await stack.createAccount('alice');
      await waitForReplicas(stack);
      stack.model.setOptions({ chunkDelayMs: 2 });
      const client = await stack.connect(alice);

      const inboxes = await Promise.all(
        Array.from({ length: turns }, async (_, index) => {
          const inbox = new TestInbox(client, alice.nats.inboxPrefix);
          await inbox.request(chatSubject(alice.accountId, 'echo'), alice.secret, { conversationKey: `fault-${index}`, message: `long: ${wordsPerTurn}` });
          return inbox;
        }),
      );
      // Every turn is under way before the server goes.
      const seen = await Promise.all(inboxes.map((inbox) => inbox.readUntil((message) => (message.sequence ?? 0) > 0 && message.chunk?.type === 'text-delta')));
      for (const inbox of inboxes) inbox.close();

      // The stream's leader is the server whose loss hurts most: its replicas must elect another.
      const leaderName = await streamLeader(service);
      const victim = stack.cluster.servers.findIndex((server) => server !== undefined && server.configPath.endsWith(`${leaderName}.conf`));
      expect(victim).toBeGreaterThanOrEqual(0);
      const killedAt = performance.now();
      await stack.cluster.kill(victim);
      const newLeader = await streamLeader(service);
      const electedAfter = performance.now() - killedAt;

      let chunks = 0;
      for (const [index, before] of seen.entries()) {
        const afterSequence = before.at(-1)!.sequence!;
        const rest = await replay(alice, client, { conversationKey: `fault-${index}`, afterSequence });
        const combined = [...before, ...rest];
        expect(finishStatus(combined)).toBe('completed');
        expect(textOf(combined)).toBe(words(wordsPerTurn));
        const sequences = combined.map((message) => message.sequence ?? 0);
        expect(sequences.every((sequence) => sequence > 0)).toBe(true);
        expect(sequences).toEqual([...new Set(sequences)].sort((left, right) => left - right));

        // The whole turn again, from the start: the same chunks, none lost, none twice.
        const full = await replay(alice, client, { conversationKey: `fault-${index}`, turnId: combined[0]!.turnId, afterSequence: 0 });
        expect(full.map((message) => message.sequence)).toEqual(combined.map((message) => message.sequence));
        expect(textOf(full)).toBe(words(wordsPerTurn));
        chunks += full.length;
      }
      const finishedAfter = performance.now() - killedAt;
      console.log(
        `FAULT nats server loss: killed ${leaderName} (the chunk stream's leader) of 3 during ${turns} turns of ${wordsPerTurn} words; ` +
          `new leader ${newLeader} after ${electedAfter.toFixed(0)} ms; ${turns}/${turns} turns completed, ${chunks} chunks replayed intact (0 lost, 0 repeated), ` +
          `all turns replayed ${finishedAfter.toFixed(0)} ms after the kill`,
      );
    } finally {
      await service.close();
      await stack.close();
    }
  });
});
