import { describe, expect, it } from 'vitest';
import { postgresForThisFile } from '../../../test/support/test-postgres.js';
import type { PostgresStorage } from '../storage/postgres/postgres-storage.js';
import { postgresStoragePerTest } from '../storage/test-support/postgres-per-test.js';
import { AsyncSettlement } from './async-settlement.js';
import { type AsyncTableRow, groupKey } from './async-tool-result.js';
import { AsyncToolResultsRepository } from './async-tool-results-repository.js';
import { asyncResultRow, dispatchGroup } from './test-support/async-rows.js';

const groupId = 'grp_bbbbbbbbbbbbbbbbbbbbbbbb';

describe('AsyncSettlement on PostgreSQL, three storages as three replicas', () => {
  const postgres = postgresStoragePerTest(postgresForThisFile());

  function replica(storage: PostgresStorage): AsyncSettlement {
    return new AsyncSettlement(new AsyncToolResultsRepository(storage.table<AsyncTableRow>('async')));
  }

  it('100 sibling settlements racing over three replicas: each lands once, and the continuation is claimed once', async () => {
    const storages = [postgres.open(), postgres.open(), postgres.open()];
    const replicas = storages.map(replica);
    const rows = Array.from({ length: 100 }, (_, index) => asyncResultRow(groupId, index, 'external-dispatch'));
    const repository = new AsyncToolResultsRepository(storages[0]!.table<AsyncTableRow>('async'));
    await repository.write(groupId, [
      ...rows.map((value) => ({ type: 'put' as const, key: value.resultId, value })),
      { type: 'put', key: groupKey, value: dispatchGroup(groupId, rows.map((value) => value.resultId)) },
    ]);
    const settled = await Promise.all(rows.map((row, index) => replicas[index % 3]!.settle(row.resultId, { status: 'completed', response: { index } }, 'endpoint', 'acc')));
    expect(settled.filter((result) => result.claimed)).toHaveLength(1);
    // Settlements are decided one after another on the group: every pending count from 99 down to 0 once.
    expect(settled.map((result) => result.pendingCount).sort((left, right) => right - left)).toEqual(Array.from({ length: 100 }, (_, index) => 99 - index));
    const snapshot = await repository.snapshot(groupId);
    expect(snapshot.group?.value).toMatchObject({ settledCount: 100, continuation: { state: 'claimed' } });
    expect(snapshot.results.every((result) => result.value.status === 'completed')).toBe(true);
  });
});
