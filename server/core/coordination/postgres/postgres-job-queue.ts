import type pg from 'pg';
import type { JobDelivery, JobQueue, JobQueueSpec } from '../job-queue.js';
import type { Logger } from '../../logger.js';

export interface PostgresJobQueueOptions<Job> {
  pool: pg.Pool;
  spec: JobQueueSpec<Job>;
  run: (job: Job, delivery: JobDelivery) => Promise<void>;
  concurrency: number;
  /** This replica's name on the leases it holds. */
  owner: string;
  leaseMs: number;
  pollMs: number;
  logger: Logger;
  /** Resolves when jobs may be claimed (the core has started); pushes are stored before that. */
  started?: Promise<void>;
}

/** A job delivered this many times without finishing is dropped with an error (its handler keeps failing or killing the process). */
const maxAttempts = 5;

const statements = {
  insert: { name: 'harness-jobs-insert', text: 'INSERT INTO harness_jobs (queue, key, job) VALUES ($1, $2, $3) ON CONFLICT (queue, key) DO NOTHING' },
  claim: {
    name: 'harness-jobs-claim',
    text: `WITH ready AS (
      SELECT queue, key FROM harness_jobs
      WHERE queue = $1 AND (leased_until IS NULL OR leased_until < now())
      ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
    UPDATE harness_jobs AS jobs SET owner = $3, leased_until = now() + $4 * interval '1 millisecond', attempts = jobs.attempts + 1
    FROM ready WHERE jobs.queue = ready.queue AND jobs.key = ready.key
    RETURNING jobs.key, jobs.job, jobs.attempts`,
  },
  renew: { name: 'harness-jobs-renew', text: "UPDATE harness_jobs SET leased_until = now() + $4 * interval '1 millisecond' WHERE queue = $1 AND owner = $2 AND key = ANY($3)" },
  finish: { name: 'harness-jobs-finish', text: 'DELETE FROM harness_jobs WHERE queue = $1 AND key = $2 AND owner = $3' },
  count: { name: 'harness-jobs-count', text: 'SELECT count(*)::int AS jobs FROM harness_jobs WHERE queue = $1' },
};

/**
 * A work queue in PostgreSQL shared by every replica (`harness_jobs`). `push` inserts the job
 * (one row per key: the same work queued twice is one job); each replica claims ready rows
 * with `FOR UPDATE SKIP LOCKED`, so two replicas never claim the same row, and holds them by a
 * lease its heartbeat renews every third of the lease. A finished job is deleted; a job whose
 * lease ran out (its replica died) is claimed again with a higher attempt, and its handler
 * finds the state in storage and does what is left. Delivery is therefore at least once.
 * Idle replicas poll every `pollMs`; a push wakes this replica at once.
 */
export class PostgresJobQueue<Job> implements JobQueue<Job> {
  readonly deduplicates = true;
  private readonly running = new Set<string>();
  private readonly pendingPushes = new Set<Promise<void>>();
  private readonly idleWaiters = new Set<() => void>();
  private stopped = false;
  private pumping = false;
  private pumpAgain = false;
  private claiming = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly options: PostgresJobQueueOptions<Job>) {
    this.heartbeat = setInterval(() => void this.renew(), Math.max(100, Math.floor(options.leaseMs / 3)));
    this.heartbeat.unref();
    void (options.started ?? Promise.resolve()).then(() => {
      if (this.stopped) return;
      this.claiming = true;
      this.pollTimer = setInterval(() => this.pump(), options.pollMs);
      this.pollTimer.unref();
      this.pump();
    });
  }

  push(job: Job): void {
    if (this.stopped) return;
    const { spec, pool } = this.options;
    const pushed = pool
      .query({ ...statements.insert, values: [spec.name, spec.keyOf(job), JSON.stringify(job)] })
      .then(() => this.pump())
      .catch((error: unknown) => this.options.logger.error({ event: 'job-queue', queue: spec.name, error: (error as Error).message }, 'could not queue a job; boot recovery queues it again'));
    this.pendingPushes.add(pushed);
    void pushed.finally(() => this.pendingPushes.delete(pushed));
  }

  /** Resolves when no push is under way, nothing runs here and the shared queue holds none of this queue's jobs. */
  async idle(): Promise<void> {
    for (;;) {
      await Promise.allSettled([...this.pendingPushes]);
      if (this.running.size === 0 && this.pendingPushes.size === 0) {
        const [row] = (await this.options.pool.query<{ jobs: number }>({ ...statements.count, values: [this.options.spec.name] })).rows;
        if ((row?.jobs ?? 0) === 0 && this.running.size === 0) return;
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.idleWaiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(this.options.pollMs, 50));
        this.idleWaiters.add(wake);
      });
    }
  }

  /** Claims nothing more and waits for the running jobs; jobs not claimed stay for the other replicas (or the next start). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    await Promise.allSettled([...this.pendingPushes]);
    while (this.running.size > 0) await new Promise<void>((resolve) => this.idleWaiters.add(resolve));
    clearInterval(this.heartbeat);
  }

  /** Claim as many ready jobs as there are free slots; one claim at a time per replica and queue. */
  private pump(): void {
    if (this.stopped || !this.claiming) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    const free = this.options.concurrency - this.running.size;
    if (free <= 0) return;
    this.pumping = true;
    this.pumpAgain = false;
    void this.claim(free)
      .catch((error: unknown) => this.options.logger.warn({ event: 'job-queue', queue: this.options.spec.name, error: (error as Error).message }, 'could not claim jobs; retrying at the next poll'))
      .finally(() => {
        this.pumping = false;
        if (this.pumpAgain) this.pump();
      });
  }

  private async claim(free: number): Promise<void> {
    const { pool, spec, owner, leaseMs } = this.options;
    const claimed = (await pool.query<{ key: string; job: Job; attempts: number }>({ ...statements.claim, values: [spec.name, free, owner, leaseMs] })).rows;
    for (const row of claimed) this.start(row.key, row.job, row.attempts);
    // A full batch means more may be waiting.
    if (claimed.length === free && claimed.length > 0) this.pumpAgain = true;
  }

  private start(key: string, job: Job, attempt: number): void {
    const { spec, logger, pool, owner } = this.options;
    this.running.add(key);
    const work = async () => {
      if (attempt > maxAttempts) {
        logger.error({ event: 'job-queue', queue: spec.name, key, attempt }, 'job dropped: delivered too many times without finishing');
        return;
      }
      if (attempt > 1) logger.warn({ event: 'job-queue', queue: spec.name, key, attempt }, 'job taken over after its lease ran out');
      await this.options.run(job, { attempt });
    };
    void work()
      .catch((error: unknown) => logger.error({ event: 'job-queue', queue: spec.name, key, error: (error as Error).message }, 'job failed'))
      .then(() => pool.query({ ...statements.finish, values: [spec.name, key, owner] }))
      .catch((error: unknown) => logger.warn({ event: 'job-queue', queue: spec.name, key, error: (error as Error).message }, 'could not delete a finished job; it runs again after its lease (handlers are idempotent)'))
      .finally(() => {
        this.running.delete(key);
        for (const wake of [...this.idleWaiters]) wake();
        this.pump();
      });
  }

  private async renew(): Promise<void> {
    if (this.running.size === 0) return;
    const { pool, spec, owner, leaseMs, logger } = this.options;
    try {
      await pool.query({ ...statements.renew, values: [spec.name, owner, [...this.running], leaseMs] });
    } catch (error) {
      logger.warn({ event: 'job-queue', queue: spec.name, error: (error as Error).message }, 'could not renew job leases');
    }
  }
}
