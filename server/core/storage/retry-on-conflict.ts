import { ConditionFailedError } from './table-store.js';

/** How `retryOnConflict` goes on after a conflict. */
export interface RetryOnConflictOptions {
  /** Rounds before giving up (at least one is always made). */
  attempts: number;
  /**
   * Called after round `attempt` met a conflict, before the next round: a short random wait
   * spreads writers of several replicas that collided, so they do not collide again.
   */
  beforeRetry?: (attempt: number) => Promise<void> | void;
}

/**
 * A compare-and-set that met a concurrent change in every one of its rounds. It is a
 * `ConditionFailedError` (callers that turn a lost race into a 409 do so for this one too),
 * never a silent give-up: whoever gets it logs it or answers with it.
 */
export class ConditionalWriteExhaustedError extends ConditionFailedError {
  constructor(
    table: string,
    key: string,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(table, key, options);
    this.message = `Gave up on ${table}/${key}: it changed under each of ${attempts} conditional writes.`;
    this.name = 'ConditionalWriteExhaustedError';
  }
}

/**
 * The one compare-and-set retry loop of the repositories. `round` reads what it needs, decides
 * and writes conditionally; a round whose write throws `ConditionFailedError` (another writer
 * got there first) is run again from its read, up to `attempts` rounds, after which
 * `ConditionalWriteExhaustedError` is thrown. Any other error ends the loop at once.
 * `target` names the table and key (or partition) in that error.
 */
export async function retryOnConflict<Result>(target: { table: string; key: string }, round: () => Promise<Result>, options: RetryOnConflictOptions): Promise<Result> {
  const attempts = Math.max(1, options.attempts);
  let lastConflict: ConditionFailedError | undefined;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    try {
      return await round();
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      lastConflict = error;
    }
    if (attempt < attempts) await options.beforeRetry?.(attempt);
  }
  throw new ConditionalWriteExhaustedError(target.table, target.key, attempts, { cause: lastConflict });
}
