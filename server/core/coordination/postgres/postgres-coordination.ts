import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import type { JobQueueFactory } from '../../background-jobs/job-queue.js';
import type { Logger } from '../../logger.js';
import type { Coordination } from '../coordination.js';
import { type CoordinationSettings, defaultCoordinationSettings } from './coordination-settings.js';
import { PostgresJobQueue } from './postgres-job-queue.js';
import { PostgresLeaseLocks } from './postgres-lease-locks.js';

export interface PostgresCoordinationOptions {
  /** The storage's database (its migrations create `harness_jobs` and `harness_leases`; run them first: `PostgresStorage.ready()`). */
  connectionString: string;
  settings?: CoordinationSettings;
  logger: Logger;
  /** Connections for queues and leases (default 4): small statements, never held across a turn. */
  poolSize?: number;
}

/**
 * Coordination of replicas that share one PostgreSQL database: the background queues in
 * `harness_jobs` (claimed with `SKIP LOCKED`, held by leases), the conversation lock as a
 * lease row, and a cron scheduler that re-reads storage to learn of other replicas' writes.
 */
export function postgresCoordination(options: PostgresCoordinationOptions): Coordination {
  const settings = options.settings ?? defaultCoordinationSettings;
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.poolSize ?? 4 });
  pool.on('error', (error) => options.logger.warn({ event: 'coordination', error: error.message }, 'a pooled PostgreSQL connection failed; the pool opens another'));
  // Unique per process: a restarted replica is a new owner, so it never renews a dead one's leases.
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const locks = new PostgresLeaseLocks({ pool, owner, leaseMs: settings.leaseMs, logger: options.logger, prefix: 'conversation:' });
  // Jobs are claimed only once the core has started: every transport's delivery is registered by then.
  let start!: () => void;
  const started = new Promise<void>((resolve) => (start = resolve));
  const jobQueues: JobQueueFactory = (run, concurrency, spec) =>
    new PostgresJobQueue({ pool, spec, run, concurrency, owner, leaseMs: settings.leaseMs, pollMs: settings.jobPollMs, logger: options.logger, started });
  let closed: Promise<void> | undefined;
  return {
    kind: 'shared',
    jobQueues,
    conversationLocks: locks,
    cronResyncIntervalMs: settings.cronResyncMs,
    start: () => start(),
    close: () => {
      closed ??= (async () => {
        locks.close();
        await pool.end();
      })();
      return closed;
    },
  };
}
