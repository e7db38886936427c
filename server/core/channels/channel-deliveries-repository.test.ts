import { describe, expect, it } from 'vitest';
import { ConditionalWriteExhaustedError } from '../storage/retry-on-conflict.js';
import type { TableStore } from '../storage/table-store.js';
import { lowdbStoragePerTest } from '../storage/test-support/lowdb-per-test.js';
import { type ChannelDelivery, ChannelDeliveriesRepository } from './channel-deliveries-repository.js';

const delivery: ChannelDelivery = {
  accountId: 'acc_1',
  agentId: 'support',
  provider: 'telegram',
  deliveryId: '42',
  conversationId: 'chat-7',
  text: 'hello',
  sender: 'someone',
  replyTarget: { chatId: 7 },
  status: 'accepted',
  acceptedAt: '2025-01-01T00:00:00.000Z',
};

/** The table as it is, except that another writer rewrites the row right after every read: each conditional write meets a newer version. */
function contendedTable(table: TableStore<ChannelDelivery>): TableStore<ChannelDelivery> {
  return {
    name: table.name,
    list: (partition) => table.list(partition),
    listPartitions: () => table.listPartitions(),
    write: (partition, operations) => table.write(partition, operations),
    async get(partition, key) {
      const row = await table.get(partition, key);
      if (row) await table.write(partition, [{ type: 'put', key, value: row.value }]);
      return row;
    },
  };
}

describe('ChannelDeliveriesRepository', () => {
  const storage = lowdbStoragePerTest();

  it('finish moves an accepted delivery to done once; a finished one is left as it is', async () => {
    const repository = new ChannelDeliveriesRepository(storage.open().table<ChannelDelivery>('channelDeliveries'));
    expect(await repository.claim(delivery)).toBe(true);
    expect(await repository.claim(delivery)).toBe(false);
    await repository.finish(delivery, { status: 'done' }, '2025-01-01T00:00:05.000Z');
    await repository.finish(delivery, { status: 'failed', error: 'late' }, '2025-01-01T00:00:09.000Z');
    expect(await repository.get(delivery)).toMatchObject({ status: 'done', finishedAt: '2025-01-01T00:00:05.000Z' });
  });

  it('finish on a row that changes under every attempt fails loudly instead of returning as if done; the delivery stays accepted', async () => {
    const table = storage.open().table<ChannelDelivery>('channelDeliveries');
    await new ChannelDeliveriesRepository(table).claim(delivery);
    const repository = new ChannelDeliveriesRepository(contendedTable(table));
    await expect(repository.finish(delivery, { status: 'done' }, '2025-01-01T00:00:05.000Z')).rejects.toBeInstanceOf(ConditionalWriteExhaustedError);
    expect((await table.get(JSON.stringify(['acc_1', 'support', 'telegram', '42']), 'delivery'))?.value.status).toBe('accepted');
  });
});
