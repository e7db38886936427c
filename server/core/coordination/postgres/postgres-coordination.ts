import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import type { JobQueueFactory } from '../../background-jobs/job-queue.js';
import type { Logger } from '../../logger.js';
import type { Coordination } from '../coordination.js';
import { type CoordinationSettings, defaultCoordinationSettings } from './coordination-settings.js';
import { PostgresBudgets } from './postgres-budgets.js';
import { PostgresJobQueue } from './postgres-job-queue.js';
import { PostgresLeaseLocks } from './postgres-lease-locks.js';
import { PostgresRunningTurns } from './postgres-running-turns.js';

/** What an earlier process of this replica held: its conversation leases end, its jobs are ready again, its turn slots are free. */
const releaseEarlier = {
  leases: { name: 'harness-leases-release-earlier', text: 'DELETE FROM harness_leases WHERE starts_with(owner, $1) AND NOT starts_with(owner, $2)' },
  jobs: { name: 'harness-jobs-release-earlier', text: 'UPDATE harness_jobs SET leased_until = NULL WHERE starts_with(owner, $1) AND owner <> $2' },
  slots: { name: 'harness-slots-release-earlier', text: 'DELETE FROM harness_slots WHERE starts_with(holder, $1) AND NOT starts_with(holder, $2)' },
};

export interface PostgresCoordinationOptions {
  /** The storage's database (its migrations create `harness_jobs`, `harness_leases`, `harness_rate_budgets` and `harness_slots`; run them first: `PostgresStorage.ready()`). */
  connectionString: string;
  settings?: CoordinationSettings;
  logger: Logger;
  /** Connections for queues, leases and budgets (default 4): small statements, never held across a turn. */
  poolSize?: number;
  /**
   * The replica's name, the same across its restarts and different from every other replica's
   * (`HARNESS_REPLICA_ID`, else host and data folder). A replica that starts releases what an
   * earlier process of the same name held: that process is gone, and its work is taken over
   * at once rather than after the lease.
   */
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
  // Jobs are claimed only once the core has started: every transport's delivery is registered by then.
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const start = async () => {
    const earlier = `${replicaName}#`;
    try {
      await pool.query({ ...releaseEarlier.leases, values: [earlier, owner] });
      await pool.query({ ...releaseEarlier.jobs, values: [earlier, owner] });
      await pool.query({ ...releaseEarlier.slots, values: [earlier, owner] });
    } catch (error) {
      options.logger.warn({ event: 'coordination', error: (error as Error).message }, "could not release an earlier process's leases; they end when they run out");
    }
    await runningTurns.start(earlier);
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
        locks.close();
        budgets.close();
        await runningTurns.close();
        await pool.end();
      })();
      return closed;
    },
  };
}
