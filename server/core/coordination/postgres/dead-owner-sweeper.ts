import type pg from 'pg';
import type { Logger } from '../../logger.js';
import { presenceLockNamespace } from './replica-presence.js';

/**
 * The process part of a lease's owner (`<replica>#<pid>#<8 hex>`), whatever the lease adds
 * after it (a hold's own token). Owners are made by `postgresCoordination`.
 */
const processPattern = '^(.*#[0-9]+#[0-9a-f]{8})';

/**
 * One statement: the processes that hold live leases (jobs, conversation leases, turn slots,
 * running turns) without holding their presence lock, and their leases ended: jobs ready to
 * be claimed again, the other rows deleted. A process that is alive holds its presence lock
 * from before its first lease until it dies.
 */
const sweep = {
  name: 'harness-sweep-dead-owners',
  text: `WITH holders AS (
      SELECT substring(owner FROM '${processPattern}') AS process FROM harness_jobs WHERE leased_until > now()
      UNION SELECT substring(owner FROM '${processPattern}') FROM harness_leases WHERE leased_until > now()
      UNION SELECT substring(holder FROM '${processPattern}') FROM harness_slots WHERE leased_until > now()
      UNION SELECT substring(owner FROM '${processPattern}') FROM harness_running_turns WHERE leased_until > now()
    ), dead AS (
      SELECT process FROM holders WHERE process IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND classid = $1::bigint::oid AND objid = (hashtext(process)::bigint & 4294967295)::oid)
    ), jobs AS (
      UPDATE harness_jobs AS jobs SET leased_until = NULL FROM dead
      WHERE jobs.leased_until > now() AND starts_with(jobs.owner, dead.process) RETURNING 1
    ), leases AS (
      DELETE FROM harness_leases AS leases USING dead WHERE starts_with(leases.owner, dead.process) RETURNING 1
    ), slots AS (
      DELETE FROM harness_slots AS slots USING dead WHERE starts_with(slots.holder, dead.process) RETURNING 1
    ), turns AS (
      DELETE FROM harness_running_turns AS turns USING dead WHERE starts_with(turns.owner, dead.process) RETURNING 1
    )
    SELECT (SELECT count(*) FROM dead)::int AS processes, (SELECT count(*) FROM jobs)::int AS jobs,
      (SELECT count(*) FROM leases)::int AS leases, (SELECT count(*) FROM slots)::int AS slots, (SELECT count(*) FROM turns)::int AS turns`,
};

interface SweepResult {
  processes: number;
  jobs: number;
  leases: number;
  slots: number;
  turns: number;
}

export interface DeadOwnerSweeperOptions {
  pool: pg.Pool;
  /** How often to look (default 1 s). */
  intervalMs: number;
  logger: Logger;
}

/**
 * Ends the leases of replica processes that died, as soon as they are gone rather than when
 * their leases run out: every replica looks every `intervalMs` for holders of live leases
 * whose presence lock (`ReplicaPresence`) no session holds. The leases stay the backstop for a
 * process that is alive but cut off (its session lingers until PostgreSQL notices).
 */
export class DeadOwnerSweeper {
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(private readonly options: DeadOwnerSweeperOptions) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.sweepOnce(), this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One look; what it ended, or undefined when a look was already under way or failed. */
  async sweepOnce(): Promise<SweepResult | undefined> {
    if (this.sweeping) return undefined;
    this.sweeping = true;
    try {
      const result = await this.options.pool.query<SweepResult>({ ...sweep, values: [presenceLockNamespace] });
      const ended = result.rows[0]!;
      if (ended.processes > 0) this.options.logger.info({ event: 'coordination', ...ended }, 'took over the leases of replica processes that are gone');
      return ended;
    } catch (error) {
      this.options.logger.warn({ event: 'coordination', error: (error as Error).message }, 'could not look for replica processes that are gone; their leases end when they run out');
      return undefined;
    } finally {
      this.sweeping = false;
    }
  }
}
