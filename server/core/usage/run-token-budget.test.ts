import { describe, expect, it } from 'vitest';
import { DailyTokenBudget } from './daily-token-budget.js';
import { LiveTokenCount } from './live-token-count.js';
import { RunTokenBudget } from './run-token-budget.js';

const now = () => new Date('2025-03-10T12:00:00.000Z');

describe('RunTokenBudget', () => {
  it("counts the account's calls in this process from the run's start, its own and other runs', without a read", () => {
    const live = new LiveTokenCount();
    live.addUsed('acc', 50); // before the run: in what it read, not counted again
    const run = new RunTokenBudget(live, { accountId: 'acc', limit: 10, spentAtStart: 3, now });
    const other = new RunTokenBudget(live, { accountId: 'acc', spentAtStart: 0, now });
    new RunTokenBudget(live, { accountId: 'acc_other', limit: 1, spentAtStart: 0, now }).callEnded(100);
    expect(run.exhausted()).toBe(false);
    expect(run.remaining()).toBe(7);
    run.callEnded(4);
    other.callEnded(2);
    expect(run.spent()).toBe(9);
    expect(run.exhausted()).toBe(false);
    other.callEnded(1);
    expect(run.exhausted()).toBe(true);
    expect(run.exhaustedError()).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 43_200 });
    expect(run.exhaustedError().message).toContain('10 of 10 tokens used today (UTC)');
    expect(run.remaining()).toBe(0);
    // No limit: never exhausted.
    expect(other.exhausted()).toBe(false);
    expect(other.limited).toBe(false);
    expect(other.remaining()).toBe(Number.POSITIVE_INFINITY);
  });

  it('keeps what a run used and did not record as unrecorded until it is recorded or the run closes', () => {
    const live = new LiveTokenCount();
    const run = new RunTokenBudget(live, { accountId: 'acc', spentAtStart: 0, now });
    run.callEnded(7);
    run.callEnded(5);
    expect(live.unrecorded('acc')).toBe(12);
    run.recorded(7);
    expect(live.unrecorded('acc')).toBe(5);
    run.close();
    expect(live.unrecorded('acc')).toBe(0);
    // Recording more than was used changes nothing.
    run.recorded(100);
    expect(live.unrecorded('acc')).toBe(0);
  });
});

describe('DailyTokenBudget.open', () => {
  it("adds what this process used and has not written to the counters it reads, and refuses only when asked", async () => {
    const live = new LiveTokenCount();
    let reads = 0;
    const counters = (total: number) => ({
      dayTotal: async () => {
        reads += 1;
        return total;
      },
    });
    const budget = new DailyTokenBudget({ repository: counters(6), defaultTokensPerDay: 10, accountTokensPerDay: async () => undefined, live, now });
    await expect(budget.open('acc', { refuseWhenSpent: true })).resolves.toBeInstanceOf(RunTokenBudget);
    // A caller's call ended, not yet written (a subagent starts while its caller's pass runs).
    new RunTokenBudget(live, { accountId: 'acc', spentAtStart: 0, now }).callEnded(4);
    await expect(budget.open('acc', { refuseWhenSpent: true })).rejects.toMatchObject({ code: 'rate_limited' });
    const continuation = await budget.open('acc', { refuseWhenSpent: false });
    expect(continuation.exhausted()).toBe(true);
    // No limit: the counters are not read.
    const unlimited = new DailyTokenBudget({ repository: counters(0), accountTokensPerDay: async () => undefined, live, now });
    const before = reads;
    expect((await unlimited.open('acc', { refuseWhenSpent: true })).exhausted()).toBe(false);
    expect(reads).toBe(before);
  });
});
