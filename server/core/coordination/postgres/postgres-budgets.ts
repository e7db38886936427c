import type pg from 'pg';
import type { Budgets } from '../../limits/budgets.js';
import type { Logger } from '../../logger.js';
import { PostgresRateBudget } from './postgres-rate-budget.js';
import { PostgresSlotPool } from './postgres-slot-pool.js';

const statements = {
  renew: { name: 'harness-slots-renew', text: "UPDATE harness_slots SET leased_until = now() + $2 * interval '1 millisecond' WHERE holder = ANY($1)" },
  // A bucket untouched for a minute has refilled whatever its size: the same as no row.
  pruneBuckets: { name: 'harness-rate-budgets-prune', text: "DELETE FROM harness_rate_budgets WHERE updated_at < now() - interval '1 minute'" },
  pruneSlots: { name: 'harness-slots-prune', text: 'DELETE FROM harness_slots WHERE leased_until < now()' },
};

/** How often each replica deletes full buckets and expired slots. */
const pruneIntervalMs = 60_000;

export interface PostgresBudgetsOptions {
  pool: pg.Pool;
  /** This replica process's name (the coordination's owner). */
  owner: string;
  leaseMs: number;
  logger: Logger;
}

/**
 * The per-account limits of replicas sharing one PostgreSQL database: budgets as token-bucket
 * rows, concurrent slots as lease rows. One heartbeat every third of the lease renews every
 * slot this replica holds; once a minute, rows that no longer mean anything (full buckets,
 * expired slots) are deleted, so a flood of fresh keys leaves no lasting rows.
 */
export class PostgresBudgets implements Budgets {
  private readonly held = new Set<string>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly pruning: NodeJS.Timeout;

  constructor(private readonly options: PostgresBudgetsOptions) {
    this.heartbeat = setInterval(() => void this.renew(), Math.max(100, Math.floor(options.leaseMs / 3)));
    this.heartbeat.unref();
    this.pruning = setInterval(() => void this.prune(), pruneIntervalMs);
    this.pruning.unref();
  }

  perMinute(name: string, perMinute: number): PostgresRateBudget {
    return new PostgresRateBudget(this.options.pool, name, perMinute);
  }

  slots(name: string, capacity: number): PostgresSlotPool {
    const { pool, owner, leaseMs, logger } = this.options;
    return new PostgresSlotPool({ pool, name, capacity, owner, leaseMs, held: this.held, logger });
  }

  /** Stop the heartbeat and the pruning (the pool is the coordination's to end). */
  close(): void {
    clearInterval(this.heartbeat);
    clearInterval(this.pruning);
  }

  /** Deletes full buckets and expired slots now (the minute's pruning; tests call it directly). */
  async prune(): Promise<void> {
    try {
      await this.options.pool.query(statements.pruneBuckets);
      await this.options.pool.query(statements.pruneSlots);
    } catch (error) {
      this.options.logger.warn({ event: 'budgets', error: (error as Error).message }, 'could not prune budget rows; the next minute tries again');
    }
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    try {
      await this.options.pool.query({ ...statements.renew, values: [[...this.held], this.options.leaseMs] });
    } catch (error) {
      this.options.logger.warn({ event: 'slot', error: (error as Error).message }, 'could not renew concurrent-turn slots');
    }
  }
}
