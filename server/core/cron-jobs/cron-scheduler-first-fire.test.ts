import { describe, expect, it } from 'vitest';
import { accountId, setup } from './test-support/scheduler-harness.js';

describe('CronScheduler: first fires', () => {
  it('fires an at() time later in the current minute at once, and once only', async () => {
    const test = await setup('2030-01-07T10:00:30Z');
    const job = await test.create('at(2030-01-07T10:00:45)');
    expect(job.nextRunAt).toBe('2030-01-07T10:00:00.000Z');
    await test.runUntil('2030-01-07T10:00:31Z');
    expect(test.launcher.submitted).toHaveLength(1);
    await test.runUntil('2030-01-07T10:05:00Z');
    expect(test.launcher.submitted).toHaveLength(1);
  });

  it('fires rate() at creation and every period; resume restarts the count', async () => {
    const test = await setup('2030-01-07T10:00:00Z');
    const job = await test.create('rate(10 minutes)');
    expect(job.nextRunAt).toBe('2030-01-07T10:00:00.000Z');
    await test.runUntil('2030-01-07T10:25:00Z');
    expect((await test.runs(job.cronJobId)).map((run) => run.scheduledFor).reverse()).toEqual(['2030-01-07T10:00:00.000Z', '2030-01-07T10:10:00.000Z', '2030-01-07T10:20:00.000Z']);

    const paused = await test.jobs.update(accountId, job.cronJobId, { status: 'paused' });
    expect(paused).toMatchObject({ status: 'paused', nextRunAt: null });
    await test.runUntil('2030-01-07T11:00:00Z');
    expect(test.launcher.submitted).toHaveLength(3);

    await test.runUntil('2030-01-07T11:03:30Z');
    const resumed = await test.jobs.update(accountId, job.cronJobId, { status: 'active' });
    // A resume fires at once (its minute's slot), then every period from that minute.
    expect(resumed).toMatchObject({ status: 'active', nextRunAt: '2030-01-07T11:03:00.000Z' });
    await test.runUntil('2030-01-07T11:14:00Z');
    expect((await test.runs(job.cronJobId)).slice(0, 2).map((run) => run.scheduledFor)).toEqual(['2030-01-07T11:13:00.000Z', '2030-01-07T11:03:00.000Z']);
  });

});
