import { defaultPoolSize } from './postgres-storage.js';

/** PostgreSQL storage as the operator configured it. */
export interface PostgresSettings {
  /** `HARNESS_DATABASE_URL`: `postgres://user:password@host:port/database` (libpq's parameters, e.g. `?sslmode=require`, go after it). */
  connectionString: string;
  /** `HARNESS_DATABASE_POOL_SIZE`: connections each process keeps at most (default 10). */
  poolSize: number;
  /** `HARNESS_DATABASE_WAIT_MS`: how long a start waits for a database that is not reachable yet (default 30 s). */
  startWaitMilliseconds: number;
}

/**
 * PostgreSQL storage when `HARNESS_DATABASE_URL` (or `url`, which wins) is set, else
 * `undefined`: the embedded lowdb files. A malformed value stops the start with its name.
 */
export function postgresSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env, url?: string): PostgresSettings | undefined {
  const connectionString = url ?? environment.HARNESS_DATABASE_URL;
  if (!connectionString) return undefined;
  let protocol: string;
  try {
    protocol = new URL(connectionString).protocol;
  } catch {
    throw new Error('HARNESS_DATABASE_URL must be a URL like postgres://user:password@host:5432/database.');
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') throw new Error(`HARNESS_DATABASE_URL must start with postgres:// (got ${protocol}//).`);
  const size = environment.HARNESS_DATABASE_POOL_SIZE;
  const poolSize = size === undefined || size === '' ? defaultPoolSize : Number(size);
  if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 1000) throw new Error(`HARNESS_DATABASE_POOL_SIZE must be a whole number from 1 to 1000 (got ${JSON.stringify(size)}).`);
  const wait = environment.HARNESS_DATABASE_WAIT_MS;
  const startWaitMilliseconds = wait === undefined || wait === '' ? 30_000 : Number(wait);
  if (!Number.isInteger(startWaitMilliseconds) || startWaitMilliseconds < 0 || startWaitMilliseconds > 3_600_000) {
    throw new Error(`HARNESS_DATABASE_WAIT_MS must be a whole number of milliseconds from 0 to 3600000 (got ${JSON.stringify(wait)}).`);
  }
  return { connectionString, poolSize, startWaitMilliseconds };
}
