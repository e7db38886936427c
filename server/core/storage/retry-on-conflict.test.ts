import { describe, expect, it } from 'vitest';
import { ConditionalWriteExhaustedError, retryOnConflict } from './retry-on-conflict.js';
import { ConditionFailedError } from './table-store.js';

const target = { table: 'counters', key: 'p' };

describe('retryOnConflict', () => {
  it('runs a round again after a conflict, waiting between rounds, and answers with the round that wrote', async () => {
    const rounds: number[] = [];
    const waits: number[] = [];
    const result = await retryOnConflict(
      target,
      async () => {
        rounds.push(rounds.length + 1);
        if (rounds.length < 3) throw new ConditionFailedError('counters', 'counter');
        return 'written';
      },
      { attempts: 5, beforeRetry: (attempt) => void waits.push(attempt) },
    );
    expect(result).toBe('written');
    expect(rounds).toEqual([1, 2, 3]);
    expect(waits).toEqual([1, 2]);
  });

  it('gives up loudly after the last attempt: a ConditionalWriteExhaustedError (a ConditionFailedError) naming the row, with the last conflict as its cause', async () => {
    let rounds = 0;
    const waits: number[] = [];
    const lastConflict = new ConditionFailedError('counters', 'counter');
    const failure = await retryOnConflict(
      target,
      async () => {
        rounds += 1;
        throw rounds === 4 ? lastConflict : new ConditionFailedError('counters', 'counter');
      },
      { attempts: 4, beforeRetry: (attempt) => void waits.push(attempt) },
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConditionalWriteExhaustedError);
    expect(failure).toBeInstanceOf(ConditionFailedError);
    const exhausted = failure as ConditionalWriteExhaustedError;
    expect(exhausted.attempts).toBe(4);
    expect(exhausted.table).toBe('counters');
    expect(exhausted.key).toBe('p');
    expect(exhausted.message).toBe('Gave up on counters/p: it changed under each of 4 conditional writes.');
    expect(exhausted.cause).toBe(lastConflict);
    expect(rounds).toBe(4);
    // No wait after the last round: the error comes at once.
    expect(waits).toEqual([1, 2, 3]);
  });

  it('passes any other error on at once, without another round', async () => {
    let rounds = 0;
    await expect(
      retryOnConflict(
        target,
        async () => {
          rounds += 1;
          throw new Error('disk full');
        },
        { attempts: 5 },
      ),
    ).rejects.toThrow('disk full');
    expect(rounds).toBe(1);
  });

  it('makes one round even when asked for none', async () => {
    let rounds = 0;
    await expect(
      retryOnConflict(
        target,
        async () => {
          rounds += 1;
          throw new ConditionFailedError('counters', 'counter');
        },
        { attempts: 0 },
      ),
    ).rejects.toBeInstanceOf(ConditionalWriteExhaustedError);
    expect(rounds).toBe(1);
  });
});
