import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { postgresForThisFile, urlWithSchema } from '../../../../test/support/test-postgres.js';
import { modifyRow } from '../read-and-write.js';
import { ConditionFailedError } from '../table-store.js';
import { postgresStoragePerTest } from '../test-support/postgres-per-test.js';
import { describeTableStoreContract } from '../test-support/table-store-contract.js';
import { migrate, readMigrations } from './postgres-migrations.js';
import { statements } from './postgres-statements.js';
import { PostgresStorage } from './postgres-storage.js';

const postgres = postgresForThisFile();

describe('PostgresStorage', () => {
  const schema = postgresStoragePerTest(postgres);
  describeTableStoreContract('postgres', () => schema.open(4));
});

describe('PostgresStorage on a shared database', () => {
  const schema = postgresStoragePerTest(postgres);
  const open = () => schema.open(3);

  it('creates its schema on first use, from the versioned SQL files, and records each migration once', async () => {
    const [first, second] = [open(), open()];
    await Promise.all([first.ready(), second.ready()]);
    const pool = new pg.Pool({ connectionString: schema.url, max: 1 });
    try {
      const recorded = await pool.query<{ version: number; name: string }>('SELECT version, name FROM harness_schema_migrations ORDER BY version');
      const files = await readMigrations();
      expect(recorded.rows).toEqual(files.map((migration) => ({ version: migration.version, name: migration.name })));
      expect(files[0]).toMatchObject({ version: 1, name: 'harness-rows' });
    } finally {
      await pool.end();
    }
  });

  it('lets only one of several replicas starting together migrate: the others wait for its lock, then find nothing to do', async () => {
    const migrations = await readMigrations();
    const pools = Array.from({ length: 4 }, () => new pg.Pool({ connectionString: schema.url, max: 1 }));
    try {
      const applied = await Promise.all(pools.map((pool) => migrate(pool, migrations)));
      expect(applied.flat().sort()).toEqual(migrations.map((migration) => migration.version));
      expect(applied.filter((versions) => versions.length > 0)).toHaveLength(1);
      expect(await migrate(pools[0]!, migrations)).toEqual([]);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('keeps conditional writes exactly-once across replicas: one creator wins, no increment is lost', async () => {
    const replicas = [open(), open(), open()];
    const results = await Promise.allSettled(replicas.flatMap((replica) => Array.from({ length: 5 }, () => replica.table<number>('jobs').write('p', [{ type: 'put', key: 'claim', value: 1, expectedVersion: null }]))));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    for (const result of results) if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(ConditionFailedError);
    await Promise.all(Array.from({ length: 60 }, (_, index) => modifyRow(replicas[index % 3]!.table<number>('jobs'), 'p', 'counter', (current) => (current ?? 0) + 1, 200)));
    expect((await open().table<number>('jobs').get('p', 'counter'))?.value).toBe(60);
  });

  it('can be used again after close, as a restarted process would', async () => {
    const storage = open();
    await storage.table<string>('things').write('p', [{ type: 'put', key: 'a', value: 'before' }]);
    await storage.close();
    expect((await storage.table<string>('things').get('p', 'a'))?.value).toBe('before');
  });

  it('finds every row through the primary key: no statement needs to scan the table', async () => {
    const storage = open();
    const table = storage.table<string>('things');
    for (let partition = 0; partition < 20; partition += 1) await table.write(`p${partition}`, [{ type: 'put', key: 'a', value: 'x' }, { type: 'put', key: 'b', value: 'y' }]);
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    try {
      await client.query('ANALYZE harness_rows');
      // With sequential scans priced out, a plan still holding one means no index could serve it.
      await client.query('SET enable_seqscan = off');
      const explained = [
        [statements.getRow, ['things', 'p1', 'a']],
        [statements.listRows, ['things', 'p1']],
        [statements.listPartitions, ['things']],
        [statements.readRows, ['things', 'p1', ['a', 'b']]],
        // The lookups inside `harness_write_batch` (migration 0005), written out: a function's
        // own statements cannot be explained from outside.
        [{ name: 'the batch function: versions', text: 'SELECT key, version FROM harness_rows stored WHERE stored.table_name = $1 AND stored.partition = $2 AND stored.key = ANY($3::text[])' }, ['things', 'p1', ['a', 'b']]],
        [{ name: 'the batch function: delete', text: 'DELETE FROM harness_rows stored WHERE stored.table_name = $1 AND stored.partition = $2 AND stored.key = ANY($3::text[])' }, ['things', 'p1', ['a']]],
      ] as const;
      for (const [statement, values] of explained) {
        const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.text}`, [...values])).rows.map((row) => row['QUERY PLAN']).join('\n');
        expect(plan, statement.name).not.toMatch(/Seq Scan/);
        expect(plan, statement.name).toMatch(/harness_rows_pkey/);
      }
    } finally {
      await client.end();
    }
  });

  it('refuses to start on a database it cannot reach, and says why', async () => {
    const unreachable = new PostgresStorage({ connectionString: urlWithSchema(postgres.url.replace(/:\d+\//, ':1/'), 'nowhere') });
    await expect(unreachable.ready()).rejects.toThrow(/ECONNREFUSED/);
    await unreachable.close();
  });
});
