import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import type { JobQueueFactory } from '../job-queue.js';
import type { Logger } from '../../logger.js';
import type { Coordination } from '../coordination.js';
import { type CoordinationSettings, defaultCoordinationSettings } from './coordination-settings.js';
import { PostgresBudgets } from './postgres-budgets.js';
import { PostgresJobQueue } from './postgres-job-queue.js';
import { PostgresLeaseLocks } from './postgres-lease-locks.js';
import { PostgresRunningTurns } from './postgres-running-turns.js';
import { DeadOwnerSweeper } from './dead-owner-sweeper.js';
import { ReplicaPresence } from './replica-presence.js';

export interface PostgresCoordinationOptions {
  /** The storage's database (its migrations create `harness_jobs`, `harness_leases`, `harness_rate_budgets` and `harness_slots`; run them first: `PostgresStorage.ready()`). */
  connectionString: string;
  settings?: CoordinationSettings;
  logger: Logger;
  /** Connections for queues, leases and budgets (default 4): small statements, never held across a turn. */
  poolSize?: number;
  /** The replica's name in the owners of its leases (`HARNESS_REPLICA_ID`, else host, data folder and ports), for people reading them. */
  replicaName?: string;
}

/**
 * Coordination of replicas that share one PostgreSQL database: the background queues in
 * `harness_jobs` (claimed with `SKIP LOCKED`, held by leases), the conversation lock as a
 * lease row, the per-account budgets and concurrent-turn slots as rows every replica
 * counts in, and a cron scheduler that re-reads storage to learn of other replicas' writes.
 */
export function postgresCoordination(options: PostgresCoordinationOptions): Coordination {
  const settings = options.settings ?? defaultCoordinationSettings;
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.poolSize ?? 4 });
  pool.on('error', (error) => options.logger.warn({ event: 'coordination', error: error.message }, 'a pooled PostgreSQL connection failed; the pool opens another'));
  // Unique per process: a restarted replica is a new owner, so it never renews a dead one's leases.
  const replicaName = options.replicaName ?? hostname();
  const owner = `${replicaName}#${process.pid}#${randomUUID().slice(0, 8)}`;
  const locks = new PostgresLeaseLocks({ pool, owner, leaseMs: settings.leaseMs, logger: options.logger, prefix: 'conversation:' });
  const budgets = new PostgresBudgets({ pool, owner, leaseMs: settings.leaseMs, logger: options.logger });
  const runningTurns = new PostgresRunningTurns({ pool, connectionString: options.connectionString, owner, leaseMs: settings.leaseMs, pollMs: settings.cancelPollMs ?? defaultCoordinationSettings.cancelPollMs, logger: options.logger });
  // Held from now until the process dies: other replicas end this process's leases as soon as it is gone.
  const presence = new ReplicaPresence({ connectionString: options.connectionString, owner, logger: options.logger });
  const sweeper = new DeadOwnerSweeper({ pool, intervalMs: Math.min(1_000, Math.max(100, Math.floor(settings.leaseMs / 3))), logger: options.logger });
  // Jobs are claimed only once the core has started: every transport's delivery is registered by then.
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const start = async () => {
    await presence.ready();
    // What an earlier process of this replica (or any dead one) held is ended before this one works.
    await sweeper.sweepOnce();
    sweeper.start();
    await runningTurns.start();
    markStarted();
  };
  const jobQueues: JobQueueFactory = (run, concurrency, spec) =>
    new PostgresJobQueue({ pool, spec, run, concurrency, owner, leaseMs: settings.leaseMs, pollMs: settings.jobPollMs, logger: options.logger, started });
  let closed: Promise<void> | undefined;
  return {
    kind: 'shared',
    jobQueues,
    conversationLocks: locks,
    budgets,
    runningTurns,
    cronResyncIntervalMs: settings.cronResyncMs,
    start,
    close: () => {
      closed ??= (async () => {
        sweeper.stop();
        locks.close();
        budgets.close();
        await runningTurns.close();
        await pool.end();
        await presence.close();
      })();
      return closed;
    },
  };
}
