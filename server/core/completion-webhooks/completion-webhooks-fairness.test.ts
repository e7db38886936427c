import { createServer, type Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startWebhookReceiver } from '../../../test/support/webhook-receiver.js';
import type { Agent } from '../agents/agent.js';
import type { AsyncRequestRecord } from '../runs/status-row.js';
import { viewAsyncRequest } from '../runs/async-requests.js';
import { silentLogger } from '../logger.js';
import { lowdbStoragePerTest } from '../storage/test-support/lowdb-per-test.js';
import type { Storage } from '../storage/table-store.js';
import { CompletionWebhooks } from './completion-webhooks.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries-repository.js';
import { type WebhookDelivery, webhookDeliveryId } from './webhook-delivery.js';
import { defaultWebhookSettings, type WebhookSettings } from './webhook-settings.js';

/** A receiver that takes every request and never answers: it counts the attempts hanging on it. */
async function startSilentReceiver(): Promise<{ url: string; hanging(): number; close(): Promise<void> }> {
  let hanging = 0;
  const server: Server = createServer((request, response) => {
    hanging += 1;
    // The answer's close: the client gave up (a request's own close comes as soon as its body is read).
    response.on('close', () => (hanging -= 1));
    request.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    hanging: () => hanging,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function finishedRow(accountId: string, eventId: string): AsyncRequestRecord {
  return { eventId, accountId, agentId: 'helper', conversationKey: 'k', transport: 'async', status: 'completed', result: { text: 'done', messages: [] }, createdAt: '2030-01-01T00:00:00.000Z', updatedAt: '2030-01-01T00:00:01.000Z' };
}

/** The webhook side of a service where each account's agent `helper` posts to the URL given for it. */
function service(storage: Storage, urls: Record<string, string>, settings: Partial<WebhookSettings>, shared = false) {
  const rows = new Map<string, AsyncRequestRecord>();
  const repository = new WebhookDeliveriesRepository(storage.table<WebhookDelivery>('webhook-deliveries'));
  const webhooks = new CompletionWebhooks({
    repository,
    agents: { load: async (accountId: string): Promise<Agent> => ({ accountId, agentId: 'helper', config: { webhooks: { completion: { url: urls[accountId]!, secret: 'fairness-test-secret-0123456789' } } }, createdAt: '', updatedAt: '' }) },
    rows: { get: async (eventId) => rows.get(eventId) },
    view: viewAsyncRequest,
    accountCheck: async () => undefined,
    settings: { ...defaultWebhookSettings, retryBaseMs: 10, ...settings },
    logger: silentLogger,
    now: () => new Date(),
    shared,
  });
  const finish = (accountId: string, eventId: string) => {
    const row = finishedRow(accountId, eventId);
    rows.set(eventId, row);
    webhooks.statusChanged(row);
  };
  return { webhooks, repository, finish, rows };
}

describe('CompletionWebhooks fairness', () => {
  const storages = lowdbStoragePerTest();

  it('delivers a victim’s webhook while an attacker’s receiver hangs on its own share of the slots, with 40 more queued', async () => {
    const silent = await startSilentReceiver();
    const victimReceiver = await startWebhookReceiver();
    // Attempts that hang far longer than the test: a victim delivery that had to wait for them would never arrive.
    const { webhooks, finish } = service(storages.open(), { attacker: silent.url, victim: victimReceiver.url }, { timeoutMs: 120_000 });
    try {
      for (let index = 0; index < 42; index += 1) finish('attacker', `evt_attacker_${index}`);
      while (silent.hanging() < defaultWebhookSettings.concurrencyPerAccount) await new Promise((resolve) => setTimeout(resolve, 5));
      finish('victim', 'evt_victim');
      await victimReceiver.waitFor(1, 10_000);
      expect(victimReceiver.received).toHaveLength(1);
      expect(JSON.parse(victimReceiver.received[0]!.body)).toMatchObject({ eventId: 'evt_victim', status: 'completed' });
      // Every attacker attempt started is still hanging, and no more of them than the account's share.
      expect(silent.hanging()).toBe(defaultWebhookSettings.concurrencyPerAccount);
    } finally {
      await silent.close();
      await Promise.all([webhooks.stop(), victimReceiver.close()]);
    }
  });

  it('holds at most its share of an account’s deliveries in memory and still delivers every one (the rest wait in storage)', async () => {
    const receiver = await startWebhookReceiver();
    const { webhooks, repository, finish } = service(storages.open(), { busy: receiver.url }, { queuePerAccount: 4, concurrencyPerAccount: 1 });
    let mostHeld = 0;
    try {
      for (let index = 0; index < 30; index += 1) {
        finish('busy', `evt_busy_${index}`);
        mostHeld = Math.max(mostHeld, webhooks.heldBy('busy'));
      }
      // idle() alone says when all is done: a refill from storage and the attempts it starts are part of it.
      let idle = false;
      const idled = webhooks.idle().then(() => (idle = true));
      while (!idle) {
        mostHeld = Math.max(mostHeld, webhooks.heldBy('busy'));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await idled;
      const deliveries = await repository.listForAgent('busy', 'helper', 100);
      expect(deliveries).toHaveLength(30);
      expect(deliveries.every((delivery) => delivery.state === 'delivered')).toBe(true);
      expect(new Set(receiver.received.map((received) => received.headers['x-harness-event'])).size).toBe(30);
      expect(mostHeld).toBeLessThanOrEqual(4);
    } finally {
      await Promise.all([webhooks.stop(), receiver.close()]);
    }
  });

  it('on replicas, takes up a pending delivery that no process holds (its process died, or a read of it failed) at the next sweep', async () => {
    const receiver = await startWebhookReceiver();
    const { webhooks, repository, rows } = service(storages.open(), { stuck: receiver.url }, { sweepMs: 50 }, true);
    try {
      await webhooks.start();
      const deliveryId = webhookDeliveryId('evt_stuck', 'completed');
      const createdAt = new Date().toISOString();
      rows.set('evt_stuck', finishedRow('stuck', 'evt_stuck'));
      // Recorded after this process's boot recovery, and never queued: only a sweep can find it.
      await repository.create({ deliveryId, accountId: 'stuck', agentId: 'helper', eventId: 'evt_stuck', eventStatus: 'completed', state: 'pending', attempts: [], createdAt, updatedAt: createdAt });
      await receiver.waitFor(1, 10_000);
      await webhooks.idle();
      expect(receiver.received[0]!.headers['x-harness-delivery']).toBe(deliveryId);
      expect(await repository.get({ accountId: 'stuck', agentId: 'helper', deliveryId })).toMatchObject({ state: 'delivered', attempts: [{ attempt: 1, statusCode: 200 }] });
    } finally {
      await Promise.all([webhooks.stop(), receiver.close()]);
    }
  });

  it('backs off a failing receiver: while it is left alone its other deliveries wait without spending attempts', async () => {
    const receiver = await startWebhookReceiver();
    receiver.answerWith(503);
    const { webhooks, repository, finish } = service(storages.open(), { flaky: receiver.url }, { concurrencyPerAccount: 1, destinationBackoffMs: 60_000, retryBaseMs: 60_000 });
    try {
      for (let index = 0; index < 5; index += 1) finish('flaky', `evt_flaky_${index}`);
      await webhooks.idle();
      // One attempt reached the receiver (503); the four others were put off until its backoff ends, none counted.
      expect(receiver.received).toHaveLength(1);
      const deliveries = await repository.listForAgent('flaky', 'helper', 10);
      expect(deliveries.map((delivery) => delivery.attempts.length).sort()).toEqual([0, 0, 0, 0, 1]);
      expect(deliveries.every((delivery) => delivery.state === 'pending' && delivery.nextAttemptAt !== undefined)).toBe(true);
    } finally {
      await Promise.all([webhooks.stop(), receiver.close()]);
    }
  });
});
