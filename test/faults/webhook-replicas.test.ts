import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureModel, type FixtureModelServer } from '../../fixtures/model-server/fixture-model-server.js';
import { requestJson } from '../support/json-request.js';
import { type ReplicaSetInSchema, startReplicaSetInSchema } from '../support/replica-set.js';
import { postgresForThisFile } from '../support/test-postgres.js';
import { startWebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver.js';

/**
 * Completion webhooks across two `harness serve` replicas on one PostgreSQL: each finish is
 * POSTed once whichever replica runs it, and a retry whose replica was killed is made by the
 * other one (its sweep finds the due delivery).
 */
const modelKey = 'sk-webhook-replicas-key-0123456789';
const webhookSecret = 'whsec-replicas-0123456789abcdef';
const postgres = postgresForThisFile();

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

function verified(webhook: ReceivedWebhook): boolean {
  const timestamp = String(webhook.headers['x-harness-timestamp']);
  return webhook.headers['x-harness-signature'] === `v1=${createHmac('sha256', webhookSecret).update(`${timestamp}.${webhook.body}`).digest('hex')}`;
}

describe('fault: completion webhooks on two replicas', () => {
  let set: ReplicaSetInSchema;
  let model: FixtureModelServer;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let secret = '';

  const deliveries = async (through: number) =>
    (await requestJson(`${set.replicas[through]!.agentUrl}/agents/helper/webhook-deliveries?limit=200`, { secret })).body.deliveries as { eventId: string; state: string; attempts: { statusCode?: number }[] }[];

  beforeAll(async () => {
    model = await startFixtureModel({ apiKey: modelKey });
    receiver = await startWebhookReceiver();
    // Retries wait 1.5 s, long enough to kill the replica that scheduled one; sweeps run every 300 ms.
    set = await startReplicaSetInSchema(postgres.admin, 2, { HARNESS_WEBHOOK_RETRY_BASE_MS: '1500', HARNESS_WEBHOOK_SWEEP_MS: '300' });
    secret = String((await requestJson(`${set.replicas[0]!.accountUrl}/accounts`, { body: { username: 'hooked', description: 'replicas' } })).body.secret);
    const config = { provider: { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } }, webhooks: { completion: { url: receiver.url, secret: webhookSecret } } };
    expect((await requestJson(`${set.replicas[1]!.accountUrl}/accounts/me/agents/helper`, { method: 'PUT', secret, body: { config } })).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await set?.close();
    await model?.close();
    await receiver?.close();
  }, 120_000);

  it('20 /async requests through both replicas: 20 signed POSTs, one per event', async () => {
    const eventIds: string[] = [];
    for (let index = 0; index < 20; index += 1) {
      const answer = await requestJson(`${set.replicas[index % 2]!.agentUrl}/agents/helper/async`, { secret, body: { conversationKey: `k-${index}`, message: `hello ${index}` } });
      expect(answer.status).toBe(202);
      eventIds.push(String(answer.body.eventId));
    }
    await receiver.waitFor(20, 60_000);
    for (let check = 0; check < 100 && (await deliveries(0)).some((delivery) => delivery.state !== 'delivered'); check += 1) await sleep(100);
    // A sweep or two later, still nothing sent twice.
    await sleep(1_000);
    expect(receiver.received).toHaveLength(20);
    expect(receiver.received.every(verified)).toBe(true);
    expect(receiver.received.map((webhook) => webhook.headers['x-harness-event']).sort()).toEqual([...eventIds].sort());
    const [throughFirst, throughSecond] = [await deliveries(0), await deliveries(1)];
    expect(throughFirst).toHaveLength(20);
    expect(throughSecond).toEqual(throughFirst);
    console.log(`webhook replicas: ${eventIds.length} finishes, ${receiver.received.length} POSTs, ${throughFirst.filter((delivery) => delivery.state === 'delivered').length} delivered records`);
  }, 120_000);

  it('a retry scheduled by a replica that is killed is made by the other one', async () => {
    receiver.received.length = 0;
    receiver.answerWith(500);
    const answer = await requestJson(`${set.replicas[0]!.agentUrl}/agents/helper/async`, { secret, body: { conversationKey: 'retry', message: 'flaky receiver' } });
    const eventId = String(answer.body.eventId);
    await receiver.waitFor(1, 60_000);
    // The replica whose attempt failed logs that it will retry; it dies before it can.
    let scheduler = -1;
    for (let check = 0; check < 100 && scheduler < 0; check += 1) {
      scheduler = set.replicas.findIndex((replica) => replica.output().includes('completion webhook attempt failed; retrying'));
      if (scheduler < 0) await sleep(50);
    }
    expect(scheduler).toBeGreaterThanOrEqual(0);
    await set.kill(scheduler);
    const survivor = 1 - scheduler;
    const [first, second] = await receiver.waitFor(2, 60_000);
    expect(verified(first!) && verified(second!)).toBe(true);
    expect(second!.headers['x-harness-delivery']).toBe(first!.headers['x-harness-delivery']);
    let delivery: { eventId: string; state: string; attempts: { statusCode?: number }[] } | undefined;
    for (let check = 0; check < 100; check += 1) {
      delivery = (await deliveries(survivor)).find((found) => found.eventId === eventId);
      if (delivery?.state === 'delivered') break;
      await sleep(100);
    }
    expect(delivery).toMatchObject({ state: 'delivered', attempts: [{ statusCode: 500 }, { statusCode: 200 }] });
    expect(receiver.received).toHaveLength(2);
    await set.restart(scheduler);
  }, 120_000);
});
