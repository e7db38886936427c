import { UsageError } from '../cli-error.js';

/**
 * The scale-out inputs of `harness deploy`: how many replicas of the stage to run and the
 * PostgreSQL database they share. Read apart from `DeployInputs` because they decide how the
 * stage is started, not what it is called.
 */
export interface ReplicaInputs {
  /** `--replicas`, else `HARNESS_REPLICAS`, else 1. */
  replicas: number;
  /** `HARNESS_DATABASE_URL` without its password (so it can be printed), or null: lowdb files. */
  databaseUrl: string | null;
}

export interface ReplicaInputOverrides {
  replicas?: number;
}

/** At most this many replicas per stage: each is a process with two ports on this machine. */
export const maximumReplicas = 32;

/** A URL with its password removed (the user stays: it is not a secret, and says who connects). */
function withoutPassword(url: URL): string {
  url.password = '';
  // libpq also reads a password from the query string.
  url.searchParams.delete('password');
  return url.toString();
}

/** `HARNESS_DATABASE_URL` as it may be printed; a usage error when it is not a postgres:// URL. */
export function printableDatabaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new UsageError('HARNESS_DATABASE_URL is not a valid URL (expected postgres://user:password@host:5432/database).');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new UsageError(`HARNESS_DATABASE_URL must start with postgres:// or postgresql:// (got ${url.protocol}//).`);
  }
  return withoutPassword(url);
}

function replicaCount(value: string | number | undefined, name: string): number | undefined {
  if (value === undefined || (typeof value === 'string' && value.trim() === '')) return undefined;
  const text = String(value).trim();
  const count = Number(text);
  if (!/^\d+$/.test(text) || count < 1 || count > maximumReplicas) throw new UsageError(`${name} must be a whole number from 1 to ${maximumReplicas} (got ${JSON.stringify(String(value))}).`);
  return count;
}

/**
 * Reads `HARNESS_REPLICAS` (or the `--replicas` override) and `HARNESS_DATABASE_URL`. More
 * than one replica needs the database: lowdb files belong to one process.
 */
export function readReplicaInputs(environment: Record<string, string | undefined>, overrides: ReplicaInputOverrides = {}): ReplicaInputs {
  const replicas = replicaCount(overrides.replicas, '--replicas') ?? replicaCount(environment.HARNESS_REPLICAS, 'HARNESS_REPLICAS') ?? 1;
  const rawDatabaseUrl = environment.HARNESS_DATABASE_URL?.trim() || undefined;
  const databaseUrl = rawDatabaseUrl === undefined ? null : printableDatabaseUrl(rawDatabaseUrl);
  if (replicas > 1 && databaseUrl === null) {
    throw new UsageError(`${replicas} replicas need a shared PostgreSQL database: pass --database-url (or set HARNESS_DATABASE_URL). Without one the stage stores lowdb files, which only one process may open.`);
  }
  return { replicas, databaseUrl };
}
