import { describe, expect, it } from 'vitest';
import { FairDeliveryScheduler } from './fair-delivery-scheduler.js';

interface Job {
  account: string;
  id: number;
}

/** A scheduler whose jobs run until `release` lets them end; `started` is the order they started in. */
function held(options: { concurrency: number; concurrencyPerAccount: number; heldPerAccount: number }) {
  const started: string[] = [];
  const releases: (() => void)[] = [];
  const rooms: string[] = [];
  const scheduler = new FairDeliveryScheduler<Job>({
    ...options,
    run: (job) => {
      started.push(`${job.account}${job.id}`);
      return new Promise<void>((resolve) => releases.push(resolve));
    },
    accountOf: (job) => job.account,
    keyOf: (job) => `${job.account}:${job.id}`,
    onRoom: (account) => void rooms.push(account),
  });
  const releaseAll = async () => {
    while (releases.length > 0) {
      for (const release of releases.splice(0)) release();
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { scheduler, started, releaseAll, rooms };
}

describe('FairDeliveryScheduler', () => {
  it('gives free slots to the accounts in turn, each within its share', async () => {
    const { scheduler, started, releaseAll } = held({ concurrency: 3, concurrencyPerAccount: 2, heldPerAccount: 100 });
    for (let id = 0; id < 10; id += 1) scheduler.offer({ account: 'a', id });
    scheduler.offer({ account: 'b', id: 0 });
    scheduler.offer({ account: 'c', id: 0 });
    // a takes its share (2), and the third slot goes to b, not to a's third job.
    expect(started).toEqual(['a0', 'a1', 'b0']);
    await releaseAll();
    await scheduler.idle();
    expect(started.indexOf('c0')).toBeLessThan(started.indexOf('a3'));
    expect(started).toHaveLength(12);
  });

  it('declines past an account’s share, says when it has room again, and treats a job offered twice as one', async () => {
    const { scheduler, started, releaseAll, rooms } = held({ concurrency: 8, concurrencyPerAccount: 1, heldPerAccount: 4 });
    const offered = [0, 1, 2, 3, 4, 5].map((id) => scheduler.offer({ account: 'a', id }));
    expect(offered).toEqual([true, true, true, true, false, false]);
    expect(scheduler.offer({ account: 'a', id: 1 })).toBe(true);
    expect(scheduler.offer({ account: 'b', id: 0 })).toBe(true);
    expect(scheduler.heldBy('a')).toBe(4);
    await releaseAll();
    await scheduler.idle();
    expect(started.sort()).toEqual(['a0', 'a1', 'a2', 'a3', 'b0']);
    expect(rooms).toEqual(['a']);
    expect(scheduler.heldBy('a')).toBe(0);
  });

  it('waits for a refill and the jobs it offers, and reads again after it for a job declined while it read', async () => {
    // Storage: what is pending and not yet run. A refill reads it when called, then offers (after `read` lets it).
    const stored = new Set<number>();
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const reads: { resolve(): void }[] = [];
    let readsUnderWay = 0;
    let mostReadsUnderWay = 0;
    const scheduler: FairDeliveryScheduler<Job> = new FairDeliveryScheduler<Job>({
      concurrency: 8,
      concurrencyPerAccount: 1,
      heldPerAccount: 4,
      run: (job) => {
        started.push(job.id);
        stored.delete(job.id);
        return new Promise<void>((resolve) => releases.push(resolve));
      },
      accountOf: (job) => job.account,
      keyOf: (job) => `${job.account}:${job.id}`,
      onRoom: async (account) => {
        const snapshot = [...stored].sort((left, right) => left - right);
        readsUnderWay += 1;
        mostReadsUnderWay = Math.max(mostReadsUnderWay, readsUnderWay);
        await new Promise<void>((resolve) => reads.push({ resolve }));
        readsUnderWay -= 1;
        for (const id of snapshot) if (!scheduler.offer({ account, id })) return;
      },
    });
    const arrive = (id: number) => {
      stored.add(id);
      scheduler.offer({ account: 'a', id });
    };
    const releaseOne = async () => {
      releases.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    };
    for (let id = 0; id < 6; id += 1) arrive(id); // 0-3 held, 4 and 5 declined
    await releaseOne();
    await releaseOne(); // 2 held: the first read starts (it will see 4 and 5)
    expect(reads).toHaveLength(1);
    arrive(6);
    arrive(7); // held: 4
    arrive(8); // declined while the read is under way, and not in what it read
    while (releases.length > 0) await releaseOne();
    expect(reads).toHaveLength(1);
    let idle = false;
    const idled = scheduler.idle().then(() => (idle = true));
    // Every job has ended, but the read is under way: not idle yet.
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    while (!idle) {
      reads.shift()?.resolve();
      while (releases.length > 0) await releaseOne();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await idled;
    // Every job ran; a refill offers what it read, so one that ended meanwhile may run again (the delivery's claim makes that a no-op).
    expect([...new Set(started)].sort((left, right) => left - right)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(stored.size).toBe(0);
    expect(mostReadsUnderWay).toBe(1);
    expect(scheduler.heldBy('a')).toBe(0);
  });
});
