import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Pool, PoolClient } from 'pg';

/** One versioned SQL file: `0001-harness-rows.sql` is version 1, named `harness-rows`. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const migrationFileName = /^(\d{4})-([a-z0-9-]+)\.sql$/;

/**
 * The folder of SQL files, found by walking up from this module, so it is the same from the
 * sources (`server/core/storage/postgres/`) and from the build (`dist/server/...`), which
 * does not copy `.sql` files: the package ships the sources' folder.
 */
export function migrationsFolder(): string {
  for (let folder = new URL('./', import.meta.url); ; folder = new URL('../', folder)) {
    const candidate = new URL('server/core/storage/postgres/migrations/', folder);
    if (existsSync(candidate)) return fileURLToPath(candidate);
    if (folder.pathname === '/') throw new Error('The PostgreSQL migrations folder (server/core/storage/postgres/migrations) was not found.');
  }
}

/** The migrations in a folder, in version order; a file that does not follow the naming rule is refused. */
export async function readMigrations(folder: string = migrationsFolder()): Promise<Migration[]> {
  const migrations: Migration[] = [];
  for (const file of (await readdir(folder)).sort()) {
    const match = migrationFileName.exec(file);
    if (!match) throw new Error(`${folder}/${file} is not named like a migration (0001-name.sql).`);
    migrations.push({ version: Number(match[1]), name: match[2]!, sql: await readFile(`${folder}/${file}`, 'utf8') });
  }
  for (const [index, migration] of migrations.entries()) {
    if (migration.version !== index + 1) throw new Error(`The PostgreSQL migrations must be numbered 1, 2, 3... without gaps; ${migration.version} is out of place.`);
  }
  return migrations;
}

/** Session-level: held by whichever replica is migrating, released even if its connection dies. */
const migrationLock = "hashtextextended('harness-schema-migrations', 0)";

/**
 * Bring the schema up to date: each migration not yet recorded in `harness_schema_migrations`
 * runs in its own transaction together with its record. An advisory lock makes replicas that
 * start together take turns: the first migrates, the others then find nothing left to do.
 * Versions recorded by newer code than this are left alone (a rolling upgrade). Returns the
 * versions this call applied.
 */
export async function migrate(pool: Pool, migrations: Migration[]): Promise<number[]> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(`SELECT pg_advisory_lock(${migrationLock})`);
    try {
      return await applyPending(client, migrations);
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${migrationLock})`);
    }
  } catch (error) {
    broken = error as Error;
    throw error;
  } finally {
    // A client that failed mid-way may still hold the lock or a transaction: close it.
    client.release(broken);
  }
}

async function applyPending(client: PoolClient, migrations: Migration[]): Promise<number[]> {
  await client.query(`CREATE TABLE IF NOT EXISTS harness_schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const recorded = await client.query<{ version: number }>('SELECT version FROM harness_schema_migrations');
  const applied = new Set(recorded.rows.map((row) => row.version));
  const done: number[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    await client.query('BEGIN');
    try {
      await client.query(migration.sql);
      await client.query('INSERT INTO harness_schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw new Error(`PostgreSQL migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`, { cause: error });
    }
    done.push(migration.version);
  }
  return done;
}
