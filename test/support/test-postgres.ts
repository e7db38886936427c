import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startPostgresServer, type PostgresServer } from './postgres-server.js';

/** Set by the global setup when the run has one PostgreSQL for every test file: a URL of the test database. */
export const testPostgresUrlVariable = 'HARNESS_TEST_POSTGRES_URL';

/** The database every test file of a run shares; each storage gets its own schema in it. */
export const testDatabaseName = 'harness_tests';

/**
 * `url` with `search_path` set to `schema`: a storage on it creates and reads its tables
 * there, isolated from every other schema of the database. A schema, not a database, per
 * storage: dropping a database forces a checkpoint (0.2-0.5 s each with fsync on); creating,
 * migrating and dropping a schema takes milliseconds.
 */
export function urlWithSchema(url: string, schema: string): string {
  const withSchema = new URL(url);
  withSchema.searchParams.set('options', `-c search_path=${schema}`);
  return withSchema.toString();
}

/** A schema name for a data folder: the same folder (a restarted service) finds the same schema. */
export function schemaForFolder(folder: string): string {
  return `harness_test_${createHash('sha256').update(folder).digest('hex').slice(0, 24)}`;
}

export function randomSchemaName(): string {
  return `harness_test_${randomBytes(12).toString('hex')}`;
}

/** Runs statements on a test database as its superuser, one connection at a time. */
export class TestDatabaseAdmin {
  private pool: pg.Pool | undefined;

  constructor(private readonly url: string) {}

  async createSchema(schema: string): Promise<string> {
    await this.connection().query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    return urlWithSchema(this.url, schema);
  }

  async dropSchema(schema: string): Promise<void> {
    await this.connection().query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }

  async query<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row[]> {
    return (await this.connection().query<Row>(text, values)).rows;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }

  private connection(): pg.Pool {
    if (!this.pool) {
      this.pool = new pg.Pool({ connectionString: this.url, max: 1 });
      // A schema dropped under a test's feet is the test's failure to report, not this pool's.
      this.pool.on('error', () => undefined);
    }
    return this.pool;
  }
}

/** Start a cluster and make the test database in it (the global setup, or a file run on its own). */
export async function startTestPostgres(): Promise<{ server: PostgresServer; url: string }> {
  const server = await startPostgresServer();
  const admin = new TestDatabaseAdmin(server.adminUrl);
  try {
    await admin.query(`CREATE DATABASE ${testDatabaseName}`);
  } catch (error) {
    await server.stop();
    throw error;
  } finally {
    await admin.close();
  }
  return { server, url: server.urlFor(testDatabaseName) };
}

/**
 * The run's PostgreSQL for the tests of this file, or, when the run has none (the test storage
 * switch is off), one started for this file alone and stopped after it. Read inside tests.
 */
export function postgresForThisFile(): { readonly admin: TestDatabaseAdmin; readonly url: string } {
  let started: Awaited<ReturnType<typeof startTestPostgres>> | undefined;
  let admin: TestDatabaseAdmin | undefined;
  let url: string | undefined;
  beforeAll(async () => {
    url = process.env[testPostgresUrlVariable];
    if (!url) {
      started = await startTestPostgres();
      url = started.url;
    }
    admin = new TestDatabaseAdmin(url);
  }, 60_000);
  afterAll(async () => {
    await admin?.close();
    await started?.server.stop();
  });
  return {
    get admin() {
      if (!admin) throw new Error('postgresForThisFile: PostgreSQL is there only while the tests run');
      return admin;
    },
    get url() {
      if (!url) throw new Error('postgresForThisFile: PostgreSQL is there only while the tests run');
      return url;
    },
  };
}
