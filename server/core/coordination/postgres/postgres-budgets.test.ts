import { describe, expect, it } from 'vitest';
import { coordinationReplicasPerTest } from '../../../../test/support/coordination-replicas.js';
import { postgresForThisFile } from '../../../../test/support/test-postgres.js';
import { memoryRateBudget, type RateOutcome } from '../../limits/rate-budget.js';
import type { SlotOutcome } from '../../limits/slot-pool.js';
import { PostgresBudgets } from './postgres-budgets.js';

const postgres = postgresForThisFile();

describe('per-account limits on PostgreSQL (replicas in one process, one schema)', () => {
  const replicas = coordinationReplicasPerTest(postgres, 4);
  /** Moves a bucket's last take `seconds` into the past, as if that much time went by. */
  const age = (budget: string, key: string, seconds: number) =>
    postgres.admin.query(`UPDATE ${replicas.schema}.harness_rate_budgets SET updated_at = updated_at - $3 * interval '1 second' WHERE budget = $1 AND key = $2`, [budget, key, seconds]);
  const rows = async (table: string) => Number((await postgres.admin.query<{ count: string }>(`SELECT count(*) FROM ${replicas.schema}.${table}`))[0]!.count);
  const allowed = (outcomes: RateOutcome[]) => outcomes.filter((outcome) => outcome.allowed).length;

  it('50 takes at once through three replicas on a budget of 20 allow exactly 20', async () => {
    const budgets = [replicas.replica(), replicas.replica(), replicas.replica()].map((coordination) => coordination.budgets.perMinute('turns', 20));
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, index) => budgets[index % 3]!.take('acc_busy')));
    expect(allowed(outcomes)).toBe(20);
    // 20 a minute: one token every 3 s.
    for (const outcome of outcomes) if (!outcome.allowed) expect(outcome.retryAfterSeconds).toBe(3);
  });

  it('refills over the minute up to the budget, with a retry time while empty', async () => {
    const [first, second] = [replicas.replica(), replicas.replica()];
    // 6 a minute: one token every 10 s, so the milliseconds the test itself takes never add one.
    const budget = first.budgets.perMinute('turns', 6);
    const elsewhere = second.budgets.perMinute('turns', 6);
    const take = async (times: number) => {
      const outcomes: RateOutcome[] = [];
      for (let index = 0; index < times; index += 1) outcomes.push(await (index % 2 === 0 ? budget : elsewhere).take('acc_a'));
      return outcomes;
    };
    expect(allowed(await take(6))).toBe(6);
    expect(await budget.take('acc_a')).toEqual({ allowed: false, retryAfterSeconds: 10 });
    // Other keys and other budgets are counted apart.
    expect(await budget.take('acc_b')).toEqual({ allowed: true });
    expect(await first.budgets.perMinute('completions', 6).take('acc_a')).toEqual({ allowed: true });

    await age('turns', 'acc_a', 25);
    const refilled = await take(3);
    expect(refilled.map((outcome) => outcome.allowed)).toEqual([true, true, false]);
    // Half a token left: 5 s to the next.
    expect(refilled[2]).toEqual({ allowed: false, retryAfterSeconds: 5 });

    // An hour later the bucket is full, not fuller.
    await age('turns', 'acc_a', 3_600);
    expect(allowed(await take(10))).toBe(6);
  });

  it('gives the same answers as the in-memory bucket for one process', async () => {
    let now = 0;
    const memory = memoryRateBudget(3, () => now);
    const shared = replicas.replica().budgets.perMinute('turns', 3);
    const both = async () => [await memory.take('a'), await shared.take('a')];
    for (let index = 0; index < 3; index += 1) expect(await both()).toEqual([{ allowed: true }, { allowed: true }]);
    expect(await both()).toEqual([
      { allowed: false, retryAfterSeconds: 20 },
      { allowed: false, retryAfterSeconds: 20 },
    ]);
    now += 20_000;
    await age('turns', 'a', 20);
    expect((await both()).map((outcome) => outcome.allowed)).toEqual([true, true]);
    expect((await both()).map((outcome) => outcome.allowed)).toEqual([false, false]);
  });

  it('prunes buckets untouched for a minute (full again) and keeps the others', async () => {
    const coordination = replicas.replica();
    const budget = coordination.budgets.perMinute('signups', 10);
    for (let index = 0; index < 100; index += 1) await budget.take(`203.0.113.${index}`);
    await budget.take('198.51.100.1');
    for (let index = 0; index < 100; index += 1) await age('signups', `203.0.113.${index}`, 61);
    expect(await rows('harness_rate_budgets')).toBe(101);
    expect(coordination.budgets).toBeInstanceOf(PostgresBudgets);
    await (coordination.budgets as PostgresBudgets).prune();
    expect(await rows('harness_rate_budgets')).toBe(1);
  });

  it('50 slot takes at once through three replicas on a capacity of 20 give exactly 20, and a given-back slot is free again', async () => {
    const pools = [replicas.replica(), replicas.replica(), replicas.replica()].map((coordination) => coordination.budgets.slots('turns', 20));
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, index) => pools[index % 3]!.take('acc_busy')));
    const taken = outcomes.filter((outcome): outcome is Extract<SlotOutcome, { taken: true }> => outcome.taken);
    expect(taken).toHaveLength(20);
    expect(outcomes.filter((outcome) => !outcome.taken)).toEqual(Array(30).fill({ taken: false, active: 20 }));
    expect(await rows('harness_slots')).toBe(20);
    expect((await pools[0]!.take('acc_other')).taken).toBe(true);

    taken[0]!.giveBack();
    taken[0]!.giveBack();
    let again: SlotOutcome = { taken: false, active: 20 };
    // The release is sent without waiting: poll until it landed (a bound on a hang, not a figure).
    for (let attempt = 0; attempt < 200 && !again.taken; attempt += 1) {
      again = await pools[1]!.take('acc_busy');
      if (!again.taken) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(again.taken).toBe(true);
    expect(await pools[2]!.take('acc_busy')).toEqual({ taken: false, active: 20 });
  });

  it("keeps a live replica's slots past the lease, and frees a killed replica's within one", async () => {
    const [dying, survivor] = [replicas.replica(1_000), replicas.replica(1_000)];
    const held = dying.budgets.slots('turns', 2);
    const other = survivor.budgets.slots('turns', 2);
    expect((await held.take('acc_a')).taken).toBe(true);
    expect((await held.take('acc_a')).taken).toBe(true);
    // Two and a half leases: only the heartbeat keeps the slots.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await other.take('acc_a')).toEqual({ taken: false, active: 2 });

    // Its heartbeat and connections stop, as in a kill; its rows stay until their lease runs out.
    await replicas.kill(dying);
    const killedAt = Date.now();
    let outcome: SlotOutcome = { taken: false, active: 2 };
    while (!outcome.taken && Date.now() - killedAt < 10_000) {
      outcome = await other.take('acc_a');
      if (!outcome.taken) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(outcome.taken).toBe(true);
  });

  it('frees the slots of an earlier process of the same replica when it starts again, without waiting for the lease', async () => {
    const dead = replicas.replica(60_000, 'restarted');
    const pool = dead.budgets.slots('turns', 1);
    expect((await pool.take('acc_a')).taken).toBe(true);
    await replicas.kill(dead);
    const again = replicas.replica(60_000, 'restarted');
    expect(await again.budgets.slots('turns', 1).take('acc_a')).toEqual({ taken: false, active: 1 });
    await again.start();
    expect((await again.budgets.slots('turns', 1).take('acc_a')).taken).toBe(true);
  });

  it('costs one round trip a take (figures printed)', async () => {
    const budget = replicas.replica().budgets.perMinute('turns', 1_000_000);
    const memory = memoryRateBudget(1_000_000);
    const takes = 2_000;
    const measure = async (take: () => Promise<RateOutcome>) => {
      const started = process.hrtime.bigint();
      for (let index = 0; index < takes; index += 1) await take();
      return Number(process.hrtime.bigint() - started) / 1e6 / takes;
    };
    await measure(() => budget.take('acc_warm'));
    const shared = await measure(() => budget.take('acc_a'));
    const inMemory = await measure(() => memory.take('acc_a'));
    const parallel = Date.now();
    await Promise.all(Array.from({ length: takes }, (_, index) => budget.take(`acc_${index % 50}`)));
    const perSecond = Math.round(takes / ((Date.now() - parallel) / 1000));
    console.log(`LIMITS take: PostgreSQL ${shared.toFixed(3)} ms sequential, ${perSecond}/s with 4 connections; in memory ${(inMemory * 1000).toFixed(2)} µs`);
    expect(await rows('harness_rate_budgets')).toBe(52);
  });
});
