import { describe, expect, it } from 'vitest';
import { BoundedJobQueue } from './bounded-job-queue.js';

describe('BoundedJobQueue', () => {
  it('runs at most `concurrency` jobs at once, all of them, in order, and reports idle', async () => {
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const settled: number[] = [];
    const queue = new BoundedJobQueue<number>(
      async (job) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setImmediate(resolve));
        order.push(job);
        running -= 1;
        if (job === 3) throw new Error('a failing job does not stop the queue');
      },
      2,
      (job) => settled.push(job),
    );
    for (let job = 0; job < 7; job += 1) queue.push(job);
    await queue.idle();
    expect(most).toBe(2);
    expect(order.sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(settled.sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('takes nothing after stop', async () => {
    const ran: number[] = [];
    const queue = new BoundedJobQueue<number>(async (job) => void ran.push(job), 1);
    await queue.stop();
    queue.push(1);
    await queue.idle();
    expect(ran).toEqual([]);
  });
});
