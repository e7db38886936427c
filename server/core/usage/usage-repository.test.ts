import { afterEach, describe, expect, it } from 'vitest';
import { temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';
import { openTestStorage, testStorageBackend } from '../../../test/support/test-storage.js';
import type { Storage } from '../storage/table-store.js';
import { DailyTokenBudget } from './daily-token-budget.js';
import { UsageRepository, type UsageRow } from './usage-repository.js';

const tokens = (totalTokens: number) => ({ inputTokens: totalTokens - 1, outputTokens: 1, totalTokens });
const increment = (agentId: string, day: string, totalTokens: number, turns = 1) => ({ accountId: 'acc_1', agentId, day, usage: tokens(totalTokens), turns, updatedAt: `${day}T12:00:00.000Z` });

describe('UsageRepository', () => {
  const folder = temporaryFolderPerTest();
  const storages: Storage[] = [];
  const open = async () => {
    const storage = await openTestStorage(folder.path);
    storages.push(storage);
    return new UsageRepository(storage.table<UsageRow>('usage'));
  };
  afterEach(async () => {
    for (const storage of storages.splice(0)) await storage.close();
  });

  it('never loses an increment when many turns (on two replicas, on PostgreSQL) add to one row at once', async () => {
    const first = await open();
    // lowdb is owned by one process: its concurrent writers are the turns of that process.
    const second = testStorageBackend === 'postgres' ? await open() : first;
    await Promise.all(Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? first : second).add(increment('helper', '2025-03-10', 10))));
    expect(await first.list('acc_1', '2025-03-10', '2025-03-10')).toEqual([
      { accountId: 'acc_1', agentId: 'helper', day: '2025-03-10', inputTokens: 360, outputTokens: 40, totalTokens: 400, turns: 40, updatedAt: '2025-03-10T12:00:00.000Z' },
    ]);
  });

  it('lists a range by day then agent across months, and totals one day for the budget', async () => {
    const repository = await open();
    await repository.add(increment('zeta', '2025-02-28', 5));
    await repository.add(increment('alpha', '2025-03-01', 7));
    await repository.add(increment('zeta', '2025-03-01', 11, 0));
    await repository.add(increment('alpha', '2025-02-28', 3));
    await repository.add(increment('alpha', '2025-04-01', 100));
    await repository.add({ ...increment('alpha', '2025-03-01', 1), accountId: 'acc_other' });
    const rows = await repository.list('acc_1', '2025-02-01', '2025-03-31');
    expect(rows.map((row) => [row.day, row.agentId, row.totalTokens, row.turns])).toEqual([
      ['2025-02-28', 'alpha', 3, 1],
      ['2025-02-28', 'zeta', 5, 1],
      ['2025-03-01', 'alpha', 7, 1],
      ['2025-03-01', 'zeta', 11, 0],
    ]);
    expect(await repository.dayTotal('acc_1', '2025-03-01')).toBe(18);
    expect(await repository.dayTotal('acc_1', '2025-03-02')).toBe(0);
  });

  it('the daily budget refuses once the day reaches the limit, the account override over the default, and resets at UTC midnight', async () => {
    const repository = await open();
    let now = new Date('2025-03-10T23:59:00.000Z');
    const overrides = new Map<string, number>();
    const budget = new DailyTokenBudget({ repository, defaultTokensPerDay: 20, accountTokensPerDay: async (accountId) => overrides.get(accountId), now: () => now });
    await repository.add(increment('helper', '2025-03-10', 19));
    await expect(budget.check('acc_1')).resolves.toBeUndefined();
    await repository.add(increment('helper', '2025-03-10', 1));
    const refusal = await budget.check('acc_1').catch((error: unknown) => error as { code: string; status: number; retryAfterSeconds: number; message: string });
    expect(refusal).toMatchObject({ code: 'rate_limited', status: 429, retryAfterSeconds: 60 });
    expect(refusal?.message).toBe("This account's daily token budget is spent: 20 of 20 tokens used today (UTC). New turns and model calls are refused until it resets at 2025-03-11T00:00:00.000Z.");
    overrides.set('acc_1', 100);
    await expect(budget.check('acc_1')).resolves.toBeUndefined();
    overrides.set('acc_1', 0);
    now = new Date('2025-03-11T00:00:00.000Z');
    await expect(budget.check('acc_1')).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 86_400 });
    overrides.delete('acc_1');
    await expect(budget.check('acc_1')).resolves.toBeUndefined();
    const unlimited = new DailyTokenBudget({ repository, accountTokensPerDay: async () => undefined, now: () => now });
    await repository.add(increment('helper', '2025-03-11', 1_000_000));
    await expect(unlimited.check('acc_1')).resolves.toBeUndefined();
  });
});
