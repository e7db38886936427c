import { describe, expect, it } from 'vitest';
import { FakeLauncher } from './test-support/fake-launcher.js';
import { accountId, setup } from './test-support/scheduler-harness.js';

describe('CronScheduler', () => {
  it('fires a slot once, at the slot, and records the run with its event id and final status', async () => {
    const test = await setup('2030-01-07T10:00:30Z');
    const job = await test.create('cron(* * * * ? *)', { prompt: 'tick' });
    expect(job.nextRunAt).toBe('2030-01-07T10:01:00.000Z');
    await test.runUntil('2030-01-07T10:00:59.999Z');
    expect(test.launcher.submitted).toHaveLength(0);
    await test.runUntil('2030-01-07T10:01:00.000Z');
    expect(test.launcher.submitted).toHaveLength(1);
    expect(test.launcher.submitted[0]).toMatchObject({ accountId, agentId: 'helper', conversationKey: 'cron:test', prompt: 'tick' });
    const [run] = await test.runs(job.cronJobId);
    expect(run).toMatchObject({ eventId: test.launcher.submitted[0]!.eventId, scheduledFor: '2030-01-07T10:01:00.000Z', startedAt: '2030-01-07T10:01:00.000Z', status: 'running', finishedAt: null });
    expect(run!.catchUp).toBeUndefined();
    expect(await test.job(job.cronJobId)).toMatchObject({ nextRunAt: '2030-01-07T10:02:00.000Z', lastRunAt: '2030-01-07T10:01:00.000Z', lastRunStatus: 'running' });

    await test.runUntil('2030-01-07T10:01:20Z');
    test.launcher.finish(run!.eventId, 'completed');
    await test.scheduler.idle();
    expect((await test.runs(job.cronJobId))[0]).toMatchObject({ status: 'completed', finishedAt: '2030-01-07T10:01:20.000Z' });
    expect((await test.job(job.cronJobId)).lastRunStatus).toBe('completed');

    await test.runUntil('2030-01-07T10:03:00Z');
    expect(test.launcher.submitted).toHaveLength(3);
    const runs = await test.runs(job.cronJobId);
    expect(runs.map((entry) => entry.scheduledFor)).toEqual(['2030-01-07T10:03:00.000Z', '2030-01-07T10:02:00.000Z', '2030-01-07T10:01:00.000Z']);
  });

  it('records a failed run with its error', async () => {
    const test = await setup('2030-01-07T10:00:30Z');
    const job = await test.create('cron(* * * * ? *)');
    await test.runUntil('2030-01-07T10:01:00Z');
    test.launcher.finish(test.launcher.submitted[0]!.eventId, 'failed', 'the model failed');
    await test.scheduler.idle();
    expect((await test.runs(job.cronJobId))[0]).toMatchObject({ status: 'failed', error: 'the model failed' });
    expect((await test.job(job.cronJobId)).lastRunStatus).toBe('failed');
  });

  it('lets only one of two schedulers on the same storage fire a slot', async () => {
    const test = await setup('2030-01-07T10:00:30Z');
    const second = new FakeLauncher();
    const first = test.scheduler;
    await test.startScheduler(second);
    const job = await test.create('cron(* * * * ? *)');
    first.jobChanged(await test.job(job.cronJobId));
    await test.runUntil('2030-01-07T10:05:00Z');
    const submissions = [...test.launcher.submitted, ...second.submitted];
    expect(submissions).toHaveLength(5);
    expect(new Set(submissions.map((entry) => entry.eventId)).size).toBe(5);
    expect(await test.runs(job.cronJobId)).toHaveLength(5);
  });

  it('three schedulers on one storage and 100 jobs due together: every slot fires once, and jobs go back on every agenda', async () => {
    const test = await setup('2030-01-07T10:00:30Z');
    const launchers = [test.launcher, new FakeLauncher(), new FakeLauncher()];
    const schedulers = [test.scheduler, await test.startScheduler(launchers[1]), await test.startScheduler(launchers[2])];
    const jobs = await Promise.all(Array.from({ length: 100 }, () => test.create('cron(* * * * ? *)')));
    for (const job of jobs) for (const scheduler of schedulers) scheduler.jobChanged(await test.job(job.cronJobId));
    await test.runUntil('2030-01-07T10:02:00Z');
    const submissions = launchers.flatMap((launcher) => launcher.submitted);
    expect(submissions).toHaveLength(200);
    expect(new Set(submissions.map((entry) => entry.eventId)).size).toBe(200);
    for (const job of jobs) expect((await test.runs(job.cronJobId)).map((run) => run.scheduledFor)).toEqual(['2030-01-07T10:02:00.000Z', '2030-01-07T10:01:00.000Z']);
    expect(schedulers.map((scheduler) => scheduler.scheduledJobs)).toEqual([100, 100, 100]);
  });

  it('does not fire a slot again after a restart within its minute', async () => {
    const test = await setup('2030-01-07T10:00:30Z');
    const job = await test.create('cron(* * * * ? *)');
    await test.runUntil('2030-01-07T10:01:00Z');
    await test.scheduler.stop();
    await test.runUntil('2030-01-07T10:01:40Z');
    await test.startScheduler();
    await test.runUntil('2030-01-07T10:01:59Z');
    expect(test.launcher.submitted).toHaveLength(1);
    await test.runUntil('2030-01-07T10:02:00Z');
    expect(test.launcher.submitted).toHaveLength(2);
    expect((await test.runs(job.cronJobId)).every((run) => !run.catchUp)).toBe(true);
  });

  it('fires a slot missed by a restart within its minute once, when it starts', async () => {
    const test = await setup('2030-01-07T10:00:30Z');
    const job = await test.create('cron(* * * * ? *)');
    await test.scheduler.stop();
    test.clock.jump('2030-01-07T10:01:20Z');
    await test.startScheduler();
    await test.runUntil('2030-01-07T10:01:30Z');
    expect(test.launcher.submitted).toHaveLength(1);
    expect((await test.runs(job.cronJobId))[0]).toMatchObject({ scheduledFor: '2030-01-07T10:01:00.000Z', catchUp: { missedSlots: 1 } });
  });

  for (const where of ['before', 'after'] as const) {
    it(`loses nothing and doubles nothing when stopped after claiming a slot, ${where} submitting`, async () => {
      const test = await setup('2030-01-07T10:00:30Z');
      const job = await test.create('cron(* * * * ? *)');
      let crash!: (error: Error) => void;
      let reached!: () => void;
      const submitting = new Promise<void>((resolve) => (reached = resolve));
      test.launcher.gate = { where, reached, promise: new Promise<void>((_resolve, reject) => (crash = reject)) };
      await test.clock.runUntil('2030-01-07T10:01:00Z');
      await submitting;
      // The slot is claimed and the submit hangs: the process goes down now.
      const stopping = test.scheduler.stop();
      crash(new Error('process killed'));
      await stopping;
      test.launcher.gate = undefined;
      const [claimed] = await test.runs(job.cronJobId);
      expect(claimed).toMatchObject({ status: 'running', scheduledFor: '2030-01-07T10:01:00.000Z' });
      expect(test.launcher.submitted).toHaveLength(where === 'before' ? 0 : 1);

      await test.runUntil('2030-01-07T10:01:30Z');
      const restarted = await test.startScheduler();
      await restarted.idle();
      expect(test.launcher.submitted).toHaveLength(1);
      expect(test.launcher.submitted[0]!.eventId).toBe(claimed!.eventId);
      const runs = await test.runs(job.cronJobId);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ status: 'running', eventId: claimed!.eventId });
      test.launcher.finish(claimed!.eventId, 'completed');
      await restarted.idle();
      expect((await test.runs(job.cronJobId))[0]!.status).toBe('completed');
      await test.runUntil('2030-01-07T10:02:00Z');
      expect(test.launcher.submitted).toHaveLength(2);
    });
  }

  it('records a run that ended while no scheduler ran, when it starts', async () => {
    const test = await setup('2030-01-07T10:00:30Z');
    const job = await test.create('cron(0 * * * ? *)');
    await test.runUntil('2030-01-07T11:00:00Z');
    await test.scheduler.stop();
    test.launcher.finish(test.launcher.submitted[0]!.eventId, 'completed');
    expect((await test.runs(job.cronJobId))[0]!.status).toBe('running');
    const restarted = await test.startScheduler();
    await restarted.idle();
    expect((await test.runs(job.cronJobId))[0]!.status).toBe('completed');
  });

  it('fires once after downtime, recording the missed slots, then keeps its schedule', async () => {
    const test = await setup('2030-01-07T10:00:30Z');
    const job = await test.create('cron(0/5 * * * ? *)');
    await test.runUntil('2030-01-07T10:05:00Z');
    expect(test.launcher.submitted).toHaveLength(1);
    await test.scheduler.stop();
    // Down from 10:05:10 to 10:33:20: slots 10:10 ... 10:30 passed (5 of them).
    test.clock.jump('2030-01-07T10:33:20Z');
    await test.startScheduler();
    await test.runUntil('2030-01-07T10:34:00Z');
    expect(test.launcher.submitted).toHaveLength(2);
    const [catchUp] = await test.runs(job.cronJobId);
    expect(catchUp).toMatchObject({
      scheduledFor: '2030-01-07T10:10:00.000Z',
      startedAt: '2030-01-07T10:33:20.000Z',
      catchUp: { missedSlots: 5, lastMissedSlot: '2030-01-07T10:30:00.000Z' },
    });
    expect((await test.job(job.cronJobId)).nextRunAt).toBe('2030-01-07T10:35:00.000Z');
    await test.runUntil('2030-01-07T10:35:00Z');
    expect(test.launcher.submitted).toHaveLength(3);
    expect((await test.runs(job.cronJobId))[0]!.catchUp).toBeUndefined();
  });

  it('stops firing at once when paused, even with the timer already armed', async () => {
    const test = await setup('2030-01-07T10:00:30Z');
    const job = await test.create('cron(* * * * ? *)');
    await test.runUntil('2030-01-07T10:00:59Z');
    await test.jobs.update(accountId, job.cronJobId, { status: 'paused' });
    await test.runUntil('2030-01-07T10:10:00Z');
    expect(test.launcher.submitted).toHaveLength(0);
    expect(await test.runs(job.cronJobId)).toEqual([]);
  });

  it('marks an at() job completed after it fires, and fires it once', async () => {
    const test = await setup('2030-01-07T10:00:00Z');
    const job = await test.create('at(2030-01-07T12:30:00)', { timezone: 'Europe/Berlin' });
    expect(job.nextRunAt).toBe('2030-01-07T11:30:00.000Z');
    await test.runUntil('2030-01-07T11:30:00Z');
    expect(await test.job(job.cronJobId)).toMatchObject({ status: 'completed', nextRunAt: null, lastRunAt: '2030-01-07T11:30:00.000Z' });
    await test.runUntil('2030-01-08T12:00:00Z');
    expect(test.launcher.submitted).toHaveLength(1);
  });

  it('applies a changed expression, zone or prompt at once', async () => {
    const test = await setup('2030-01-07T10:00:30Z');
    const job = await test.create('cron(0 12 * * ? *)', { prompt: 'old' });
    expect(job.nextRunAt).toBe('2030-01-07T12:00:00.000Z');
    const changed = await test.jobs.update(accountId, job.cronJobId, { scheduleExpression: 'cron(15 10 * * ? *)', prompt: 'new' });
    expect(changed.nextRunAt).toBe('2030-01-07T10:15:00.000Z');
    await test.runUntil('2030-01-07T10:15:00Z');
    expect(test.launcher.submitted.map((entry) => entry.prompt)).toEqual(['new']);
    const zoned = await test.jobs.update(accountId, job.cronJobId, { timezone: 'America/New_York' });
    expect(zoned.nextRunAt).toBe('2030-01-07T15:15:00.000Z');
    await test.runUntil('2030-01-08T10:15:00Z');
    expect(test.launcher.submitted).toHaveLength(2);
    expect((await test.runs(job.cronJobId))[0]!.scheduledFor).toBe('2030-01-07T15:15:00.000Z');
  });

  it('stops and removes a deleted job', async () => {
    const test = await setup('2030-01-07T10:00:30Z');
    const job = await test.create('cron(* * * * ? *)');
    await test.runUntil('2030-01-07T10:01:00Z');
    await test.jobs.delete(accountId, job.cronJobId);
    await test.runUntil('2030-01-07T10:10:00Z');
    expect(test.launcher.submitted).toHaveLength(1);
    expect(await test.repository.get(accountId, job.cronJobId)).toBeUndefined();
    expect(await test.repository.runs(accountId, job.cronJobId)).toEqual([]);
    expect(test.scheduler.scheduledJobs).toBe(0);
  });

  it('loads every active job on start and keeps one timer for all of them', async () => {
    const test = await setup('2030-01-07T10:00:30Z');
    for (let index = 0; index < 50; index += 1) await test.create(`cron(${index % 60} * * * ? *)`);
    const paused = await test.create('cron(* * * * ? *)');
    await test.jobs.update(accountId, paused.cronJobId, { status: 'paused' });
    await test.scheduler.stop();
    const restarted = await test.startScheduler();
    expect(restarted.scheduledJobs).toBe(50);
    expect(test.clock.pendingTimers()).toBe(1);
    await test.runUntil('2030-01-07T11:00:00Z');
    // Minutes 1..59 of 10:xx, then minute 0 of 11:00.
    expect(test.launcher.submitted).toHaveLength(50);
  });
});
