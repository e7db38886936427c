import { describe, expect, it } from 'vitest';
import { ConditionalWriteExhaustedError, type RetryOnConflictOptions, retryOnConflict } from './retry-on-conflict.js';
import { ConditionFailedError } from './table-store.js';

const target = { table: 'counters', key: 'p' };

/**
 * Runs `retryOnConflict` with rounds that throw what `failure` gives for round n (1, 2, ...)
 * and answer 'written' when it gives nothing. Returns the answer or the error, the rounds run
 * and the waits asked for.
 */
async function run(failure: (round: number) => Error | undefined, options: Omit<RetryOnConflictOptions, 'beforeRetry'>) {
  let rounds = 0;
  const waits: number[] = [];
  const outcome = await retryOnConflict(
    target,
    async () => {
      rounds += 1;
      const error = failure(rounds);
      if (error) throw error;
      return 'written';
    },
    { ...options, beforeRetry: (attempt) => void waits.push(attempt) },
  ).catch((error: unknown) => error);
  return { outcome, rounds, waits };
}

const conflict = () => new ConditionFailedError('counters', 'counter');

describe('retryOnConflict', () => {
  it('runs a round again after a conflict, waiting between rounds, and answers with the round that wrote', async () => {
    expect(await run((round) => (round < 3 ? conflict() : undefined), { attempts: 5 })).toEqual({ outcome: 'written', rounds: 3, waits: [1, 2] });
  });

  it('gives up loudly after the last attempt: a ConditionalWriteExhaustedError (a ConditionFailedError) naming the row, with the last conflict as its cause', async () => {
    const lastConflict = conflict();
    const { outcome, rounds, waits } = await run((round) => (round === 4 ? lastConflict : conflict()), { attempts: 4 });
    expect(outcome).toBeInstanceOf(ConditionalWriteExhaustedError);
    expect(outcome).toBeInstanceOf(ConditionFailedError);
    expect(outcome).toMatchObject({ attempts: 4, table: 'counters', key: 'p', message: 'Gave up on counters/p: it changed under each of 4 conditional writes.', cause: lastConflict });
    expect(rounds).toBe(4);
    // No wait after the last round: the error comes at once.
    expect(waits).toEqual([1, 2, 3]);
  });

  it('passes any other error on at once, without another round', async () => {
    const { outcome, rounds } = await run(() => new Error('disk full'), { attempts: 5 });
    expect((outcome as Error).message).toBe('disk full');
    expect(rounds).toBe(1);
  });

  it('makes one round even when asked for none', async () => {
    const { outcome, rounds } = await run(conflict, { attempts: 0 });
    expect(outcome).toBeInstanceOf(ConditionalWriteExhaustedError);
    expect(rounds).toBe(1);
  });
});
