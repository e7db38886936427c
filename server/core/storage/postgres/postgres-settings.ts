import { integerSetting } from '../../integer-setting.js';
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
  const poolSize = integerSetting(environment, 'HARNESS_DATABASE_POOL_SIZE', defaultPoolSize, 1, 1000);
  const startWaitMilliseconds = integerSetting(environment, 'HARNESS_DATABASE_WAIT_MS', 30_000, 0, 3_600_000);
  return { connectionString, poolSize, startWaitMilliseconds };
}
