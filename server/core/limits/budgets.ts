import { memoryRateBudget, type RateBudget } from './rate-budget.js';
import { MemorySlotPool, type SlotPool } from './slot-pool.js';

/**
 * Where the per-account limits are counted: in this process (one process owns the storage)
 * or in the shared database (replicas on PostgreSQL), so an account gets its budget once
 * service-wide rather than once per replica. The core asks for each budget once, by name.
 */
export interface Budgets {
  /**
   * The per-minute budget named `name` (`turns`, `completions`, `webhooks`, `signups`):
   * `perMinute` takes per key, refilled continuously over the minute. Replicas that ask for
   * the same name share one budget per key.
   */
  perMinute(name: string, perMinute: number): RateBudget;
  /** The slots named `name` (`turns`): at most `capacity` held at once per key. */
  slots(name: string, capacity: number): SlotPool;
}

/** One process: a `RateLimiter` per budget and a count per slot pool, in memory (the embedded default). */
export const memoryBudgets: Budgets = {
  perMinute: (_name, perMinute) => memoryRateBudget(perMinute),
  slots: (_name, capacity) => new MemorySlotPool(capacity),
};
