import { LowdbStorage } from '../../server/core/storage/lowdb-storage.js';
import { PostgresStorage } from '../../server/core/storage/postgres/postgres-storage.js';
import type { Storage } from '../../server/core/storage/table-store.js';
import { schemaForFolder, TestDatabaseAdmin, testPostgresUrlVariable } from './test-postgres.js';

/**
 * Which storage the tests run on: `HARNESS_TEST_STORAGE=postgres` puts every test that builds
 * storage through this module (and every service it starts) on PostgreSQL; otherwise lowdb
 * files, the embedded default.
 */
export type TestStorageBackend = 'lowdb' | 'postgres';

export const testStorageBackend: TestStorageBackend = process.env.HARNESS_TEST_STORAGE === 'postgres' ? 'postgres' : 'lowdb';

/** Connections per test storage: tests run a few requests at a time, and many storages share one server. */
const testPoolSize = 4;

let admin: TestDatabaseAdmin | undefined;
const schemas = new Set<string>();

function runPostgresUrl(): string {
  const url = process.env[testPostgresUrlVariable];
  if (!url) throw new Error(`HARNESS_TEST_STORAGE=postgres needs the run's PostgreSQL (${testPostgresUrlVariable}); run the tests through vitest, whose global setup starts it.`);
  return url;
}

/**
 * The PostgreSQL URL of a data folder's own schema, made on first use and dropped when the
 * test file ends (`test-storage-setup.ts`); `undefined` on lowdb. The same folder gets the
 * same schema, so a service restarted on its data folder finds its rows again.
 */
export async function testDatabaseUrl(dataFolder: string): Promise<string | undefined> {
  if (testStorageBackend === 'lowdb') return undefined;
  admin ??= new TestDatabaseAdmin(runPostgresUrl());
  const schema = schemaForFolder(dataFolder);
  schemas.add(schema);
  return admin.createSchema(schema);
}

/** What `new LowdbStorage(folder)` was in the tests: lowdb files in `folder`, or the folder's PostgreSQL schema. */
export async function openTestStorage(folder: string): Promise<Storage> {
  const url = await testDatabaseUrl(folder);
  return url ? new PostgresStorage({ connectionString: url, poolSize: testPoolSize }) : new LowdbStorage(folder);
}

/** Drop every schema this test file made (its storages may still be open: DROP SCHEMA does not wait for them). */
export async function dropTestSchemas(): Promise<void> {
  if (!admin) return;
  for (const schema of schemas) await admin.dropSchema(schema);
  schemas.clear();
  await admin.close();
  admin = undefined;
}

/**
 * Every row a data folder's PostgreSQL schema holds, as text (table, partition, key, value per
 * line), for tests that look at what is stored at rest; `undefined` on lowdb, whose rows are files.
 */
export async function storedRowsText(dataFolder: string): Promise<string | undefined> {
  if (testStorageBackend === 'lowdb') return undefined;
  admin ??= new TestDatabaseAdmin(runPostgresUrl());
  const rows = await admin.query<{ line: string }>(`SELECT concat_ws(' ', table_name, partition, key, value::text) AS line FROM ${schemaForFolder(dataFolder)}.harness_rows`);
  return rows.map((row) => row.line).join('\n');
}
