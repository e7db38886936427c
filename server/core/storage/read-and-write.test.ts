import pg from 'pg';
import { beforeEach, describe, expect, it } from 'vitest';
import { postgresForThisFile } from '../../../test/support/test-postgres.js';
import { statements } from './postgres/postgres-statements.js';
import { modifyRows, readAndWrite } from './read-and-write.js';
import { ConditionalWriteExhaustedError } from './retry-on-conflict.js';
import { ConditionFailedError, type Storage, type TableStore, type VersionedRow } from './table-store.js';
import { lowdbStoragePerTest } from './test-support/lowdb-per-test.js';
import { postgresStoragePerTest } from './test-support/postgres-per-test.js';

interface Counter {
  count: number;
}

/** Add one to the row `counter` from what was read, conditional on its version. */
function increment(rows: VersionedRow<Counter>[]) {
  const current = rows.find((row) => row.key === 'counter');
  return {
    operations: [{ type: 'put' as const, key: 'counter', value: { count: (current?.value.count ?? 0) + 1 }, expectedVersion: current ? current.version : null }],
    result: (current?.value.count ?? 0) + 1,
  };
}

function describeReadAndWrite(backend: string, open: () => Storage, decidesOnce: boolean): void {
  describe(`readAndWrite on ${backend}`, () => {
    let table: TableStore<Counter>;
    beforeEach(() => {
      table = open().table<Counter>('counters');
    });

    it(`40 racing read-modify-writes of one row all land${decidesOnce ? ', each decided once (they queue on the partition, no retry)' : ''}`, async () => {
      let decisions = 0;
      const results = await Promise.all(
        Array.from({ length: 40 }, () =>
          readAndWrite(table, 'p', ['counter'], (rows) => {
            decisions += 1;
            return increment(rows);
          }),
        ),
      );
      expect((await table.get('p', 'counter'))?.value.count).toBe(40);
      expect([...results].sort((left, right) => left - right)).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
      if (decidesOnce) expect(decisions).toBe(40);
      else expect(decisions).toBeGreaterThanOrEqual(40);
    });

    it('passes the rows of the keys that exist, or the whole partition in list order, and an empty batch writes nothing', async () => {
      await table.write('p', [
        { type: 'put', key: 'b', value: { count: 2 } },
        { type: 'put', key: 'a', value: { count: 1 } },
      ]);
      const some = await readAndWrite(table, 'p', ['a', 'missing'], (rows) => ({ operations: [], result: rows.map((row) => row.key) }));
      expect(some).toEqual(['a']);
      const all = await readAndWrite(table, 'p', undefined, (rows) => ({ operations: [], result: rows.map((row) => [row.key, row.version]) }));
      expect(all).toEqual([
        ['b', 1],
        ['a', 1],
      ]);
    });

    it('a throw from decide applies nothing, and a condition on a row it did not read is still checked', async () => {
      await table.write('p', [{ type: 'put', key: 'other', value: { count: 5 } }]);
      await expect(
        readAndWrite(table, 'p', ['counter'], () => {
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      await expect(
        readAndWrite(table, 'p', ['counter'], (rows) => ({ operations: [...increment(rows).operations, { type: 'put', key: 'other', value: { count: 6 }, expectedVersion: null }], result: undefined }), 3),
      ).rejects.toBeInstanceOf(ConditionFailedError);
      expect(await table.get('p', 'counter')).toBeUndefined();
      expect((await table.get('p', 'other'))?.value.count).toBe(5);
    });

    it('modifyRows is optimistic here too: racing writes all land, and a batch that never holds is decided `attempts` times, then given up loudly', async () => {
      await Promise.all(Array.from({ length: 20 }, () => modifyRows(table, 'p', ['counter'], increment)));
      expect((await table.get('p', 'counter'))?.value.count).toBe(20);
      await table.write('p', [{ type: 'put', key: 'other', value: { count: 5 } }]);
      let decisions = 0;
      const failure = await modifyRows(
        table,
        'p',
        ['counter'],
        (rows) => {
          decisions += 1;
          return { operations: [...increment(rows).operations, { type: 'put', key: 'other', value: { count: 6 }, expectedVersion: null }], result: undefined };
        },
        4,
      ).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ConditionalWriteExhaustedError);
      expect(decisions).toBe(4);
      expect((await table.get('p', 'counter'))?.value.count).toBe(20);
    });
  });
}

const lowdb = lowdbStoragePerTest();
describeReadAndWrite('lowdb (decided again on a conflict)', () => lowdb.open(), false);

describe('on PostgreSQL', () => {
  const postgres = postgresStoragePerTest(postgresForThisFile());
  it('reads the rows of some keys through the primary key', async () => {
    const client = new pg.Client({ connectionString: postgres.url });
    await postgres.open(1).ready();
    await client.connect();
    try {
      // With sequential scans priced out, a plan still holding one means no index could serve it.
      await client.query('SET enable_seqscan = off');
      const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statements.readRows.text}`, ['things', 'p1', ['a', 'b']])).rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(plan).not.toMatch(/Seq Scan/);
      expect(plan).toMatch(/harness_rows_pkey/);
    } finally {
      await client.end();
    }
  });

  describeReadAndWrite('PostgreSQL (under the partition lock)', () => postgres.open(8), true);
});
