import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { words } from '../fixtures/model-server/model-plan.js';
import { silentLogger } from '../server/core/logger.js';
import { connectNats } from '../server/nats/nats-connection.js';
import { chatSubject, replayRequestSubject } from '../server/nats/nats-subjects.js';
import { expectChunkStreamOnThreeServers, startNatsClusterStack, waitForReplicas, type NatsClusterStack } from './support/nats-cluster-stack.js';
import { finishStatus, TestInbox, textOf, type NatsTestAccount } from './support/nats-stack.js';

describe('NATS gateway replicas on a 3-server cluster', () => {
  let stack: NatsClusterStack;
  let alice: NatsTestAccount;

  beforeAll(async () => {
    stack = await startNatsClusterStack({ replicaCount: 2 });
    alice = await stack.createAccount('alice');
    await waitForReplicas(stack);
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('keeps the chunk stream on 3 replicas', async () => {
    await expectChunkStreamOnThreeServers({ url: stack.cluster.url, ...stack.cluster.serviceCredentials });
  });

  it('hands out signed credentials that name every server, and each replica signs ones the cluster accepts', async () => {
    expect(alice.nats.url).toBe(stack.cluster.url);
    expect(alice.nats.jwt).toMatch(/^ey/);
    expect(alice.nats.creds).toContain('BEGIN NATS USER JWT');
    const fromSecondReplica = await stack.replicas[1]!.service.credentials(alice.accountId);
    const connection = await connectNats({ url: stack.cluster.url, jwt: fromSecondReplica!.jwt!, seed: fromSecondReplica!.password!, name: 'second-replica-credentials', logger: silentLogger });
    expect(connection.isClosed()).toBe(false);
    await connection.close();
  });

  it('shares the requests between the replicas (queue group), and every turn completes', async () => {
    const connection = await stack.connect(alice);
    const turns = 16;
    const results = await Promise.all(
      Array.from({ length: turns }, async (_, index) => {
        const inbox = new TestInbox(connection, alice.nats.inboxPrefix);
        await inbox.request(chatSubject(alice.accountId, 'echo'), alice.secret, { conversationKey: `shared-${index}`, message: `turn ${index}` });
        const messages = await inbox.untilFinal();
        inbox.close();
        return messages;
      }),
    );
    results.forEach((messages, index) => {
      expect(finishStatus(messages)).toBe('completed');
      expect(textOf(messages)).toBe(`Echo: turn ${index}`);
    });
    const served = stack.replicas.map((replica) => replica.logger.messages.filter((message) => message === 'NATS turn started').length);
    expect(served.reduce((sum, count) => sum + count, 0)).toBe(turns);
    // A queue group gives each request to one member at random: 16 requests all on one of two replicas has odds of 1 in 32,768.
    expect(served.every((count) => count > 0)).toBe(true);
  });

  it('replays a turn identically whichever replica answers the replay', async () => {
    const connection = await stack.connect(alice);
    const inbox = new TestInbox(connection, alice.nats.inboxPrefix);
    await inbox.request(chatSubject(alice.accountId, 'echo'), alice.secret, { conversationKey: 'replayed', message: 'long: 300' });
    const live = await inbox.untilFinal();
    inbox.close();
    expect(textOf(live)).toBe(words(300));
    // Five at once: the per-turn limit of concurrent replays (HARNESS_LIMIT_RESUMES_PER_TURN).
    const answers = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const replayInbox = new TestInbox(connection, alice.nats.inboxPrefix);
        await replayInbox.request(replayRequestSubject(alice.accountId, 'echo'), alice.secret, { conversationKey: 'replayed', afterSequence: 0 });
        const replayed = await replayInbox.untilReplayEnd();
        replayInbox.close();
        return replayed.filter((message) => message.replayEnd === undefined);
      }),
    );
    for (const replayed of answers) expect(replayed).toEqual(live);
  });
});
