import { describe, expect, it } from 'vitest';
import { startWebhookReceiver } from '../../../test/support/webhook-receiver.js';
import { AccountDisabledError } from '../accounts/account-status.js';
import type { Agent } from '../agents/agent.js';
import type { AsyncRequestRecord } from '../runs/status-row.js';
import { viewAsyncRequest } from '../runs/async-requests.js';
import { silentLogger } from '../logger.js';
import { lowdbStoragePerTest } from '../storage/test-support/lowdb-per-test.js';
import type { Storage } from '../storage/table-store.js';
import { CompletionWebhooks } from './completion-webhooks.js';
import { deliveriesKeptPerAgent, WebhookDeliveriesRepository } from './webhook-deliveries-repository.js';
import { type WebhookDelivery, webhookDeliveryId } from './webhook-delivery.js';
import { defaultWebhookSettings } from './webhook-settings.js';

const row: AsyncRequestRecord = {
  eventId: 'evt_finished',
  accountId: 'acc_1',
  agentId: 'helper',
  conversationKey: 'k',
  transport: 'async',
  status: 'completed',
  result: { text: 'done', messages: [] },
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:01.000Z',
};

/** A service's webhook side over `storage`: each call is one replica (or one restart) sharing it. */
function replica(storage: Storage, url: string, options: { disabled?: boolean } = {}) {
  const agent: Agent = { accountId: 'acc_1', agentId: 'helper', config: { webhooks: { completion: { url, secret: 'unit-test-secret-0123456789' } } }, createdAt: '', updatedAt: '' };
  const repository = new WebhookDeliveriesRepository(storage.table<WebhookDelivery>('webhook-deliveries'));
  const webhooks = new CompletionWebhooks({
    repository,
    agents: { load: async () => agent },
    rows: { get: async (eventId) => (eventId === row.eventId ? row : undefined) },
    view: viewAsyncRequest,
    accountCheck: async (accountId) => {
      if (options.disabled) throw new AccountDisabledError(accountId);
    },
    settings: { ...defaultWebhookSettings, retryBaseMs: 10, timeoutMs: 5_000 },
    logger: silentLogger,
    now: () => new Date(),
  });
  return { webhooks, repository };
}

describe('CompletionWebhooks', () => {
  const storages = lowdbStoragePerTest();

  it('records and sends a finish once, however many writers hear of it', async () => {
    const receiver = await startWebhookReceiver();
    const storage = storages.open();
    const [first, second] = [replica(storage, receiver.url), replica(storage, receiver.url)];
    try {
      first.webhooks.statusChanged(row);
      second.webhooks.statusChanged(row);
      first.webhooks.statusChanged(row);
      await Promise.all([first.webhooks.idle(), second.webhooks.idle()]);
      expect(receiver.received).toHaveLength(1);
      expect(await first.repository.listForAgent('acc_1', 'helper', 10)).toMatchObject([
        { deliveryId: webhookDeliveryId(row.eventId, 'completed'), state: 'delivered', attempts: [{ attempt: 1, statusCode: 200 }] },
      ]);
      // Not every transition is a finish.
      first.webhooks.statusChanged({ ...row, eventId: 'evt_waiting', status: 'waiting_async_tools' });
      await first.webhooks.idle();
      expect(receiver.received).toHaveLength(1);
    } finally {
      await Promise.all([first.webhooks.stop(), second.webhooks.stop(), receiver.close()]);
    }
  });

  it('takes over an attempt whose worker died (its claim ran out), and only then', async () => {
    const receiver = await startWebhookReceiver();
    const storage = storages.open();
    const { webhooks, repository } = replica(storage, receiver.url);
    const deliveryId = webhookDeliveryId(row.eventId, 'completed');
    const base: WebhookDelivery = { deliveryId, accountId: 'acc_1', agentId: 'helper', eventId: row.eventId, eventStatus: 'completed', state: 'pending', attempts: [], createdAt: row.updatedAt, updatedAt: row.updatedAt };
    try {
      await repository.create({ ...base, claim: { attempt: 1, until: new Date(Date.now() + 60_000).toISOString() } });
      expect(await webhooks.recover()).toBe(1);
      await webhooks.idle();
      expect(receiver.received).toHaveLength(0);
      const table = storage.table<WebhookDelivery>('webhook-deliveries');
      const [stored] = await table.list(JSON.stringify(['acc_1', 'helper']));
      await table.write(JSON.stringify(['acc_1', 'helper']), [{ type: 'put', key: deliveryId, value: { ...base, claim: { attempt: 1, until: new Date(Date.now() - 1).toISOString() } }, expectedVersion: stored!.version }]);
      await webhooks.recover();
      await webhooks.idle();
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]!.headers['x-harness-delivery']).toBe(deliveryId);
      expect(await repository.get(base)).toMatchObject({ state: 'delivered', attempts: [{ attempt: 1, statusCode: 200 }] });
    } finally {
      await Promise.all([webhooks.stop(), receiver.close()]);
    }
  });

  it('drops a disabled account’s finishes, and its pending deliveries', async () => {
    const receiver = await startWebhookReceiver();
    const storage = storages.open();
    const disabled = replica(storage, receiver.url, { disabled: true });
    try {
      disabled.webhooks.statusChanged(row);
      await disabled.webhooks.idle();
      expect(await disabled.repository.listForAgent('acc_1', 'helper', 10)).toEqual([]);
      const deliveryId = webhookDeliveryId(row.eventId, 'completed');
      await disabled.repository.create({ deliveryId, accountId: 'acc_1', agentId: 'helper', eventId: row.eventId, eventStatus: 'completed', state: 'pending', attempts: [], createdAt: row.updatedAt, updatedAt: row.updatedAt });
      await disabled.webhooks.recover();
      await disabled.webhooks.idle();
      expect(receiver.received).toHaveLength(0);
      expect(await disabled.repository.get({ accountId: 'acc_1', agentId: 'helper', deliveryId })).toMatchObject({ state: 'failed', error: 'the account is disabled', attempts: [] });
    } finally {
      await Promise.all([disabled.webhooks.stop(), receiver.close()]);
    }
  });

  it('keeps the newest deliveries of an agent and never removes a pending one', async () => {
    const repository = new WebhookDeliveriesRepository(storages.open().table<WebhookDelivery>('webhook-deliveries'));
    const delivery = (index: number, state: WebhookDelivery['state']): WebhookDelivery => {
      const createdAt = new Date(Date.UTC(2030, 0, 1, 0, 0, index)).toISOString();
      return { deliveryId: `whd_${String(index).padStart(4, '0')}`, accountId: 'acc_1', agentId: 'helper', eventId: `evt_${index}`, eventStatus: 'completed', state, attempts: [], createdAt, updatedAt: createdAt };
    };
    expect(await repository.create(delivery(0, 'pending'))).toBe(true);
    expect(await repository.create(delivery(0, 'pending'))).toBe(false);
    for (let index = 1; index <= deliveriesKeptPerAgent + 10; index += 1) await repository.create(delivery(index, 'delivered'));
    const kept = await repository.listForAgent('acc_1', 'helper', 1_000);
    expect(kept).toHaveLength(deliveriesKeptPerAgent);
    expect(kept[0]!.deliveryId).toBe(`whd_0${deliveriesKeptPerAgent + 10}`);
    expect(kept.some((found) => found.deliveryId === 'whd_0000')).toBe(true);
  });
});
