import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Agents } from '../../agents/agents.js';
import { NotFoundError } from '../../errors.js';
import { silentLogger } from '../../logger.js';
import { openTestStorage } from '../../../../test/support/test-storage.js';
import type { CronJobRecord, CronTableRow } from '../cron-job.js';
import { CronJobs } from '../cron-jobs.js';
import { CronJobsRepository } from '../cron-jobs-repository.js';
import { CronScheduler } from '../cron-scheduler.js';
import { FakeLauncher } from './fake-launcher.js';
import { ManualClock } from './manual-clock.js';

export const accountId = 'acc_1';
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A scheduler on real storage (lowdb files in a temp folder, or PostgreSQL under the test switch), a hand-moved clock and a fake launcher. */
export async function setup(start: string) {
  const folder = await mkdtemp(join(tmpdir(), 'harness-cron-'));
  const storage = await openTestStorage(folder);
  const repository = new CronJobsRepository(storage.table<CronTableRow>('cron-jobs'));
  const clock = new ManualClock(start);
  const launcher = new FakeLauncher();
  const schedulers: CronScheduler[] = [];
  const agents = {
    load: async (_accountId: string, agentId: string) => {
      if (agentId !== 'helper') throw new NotFoundError();
      return {};
    },
  } as unknown as Agents;
  const harness = {
    storage,
    repository,
    clock,
    launcher,
    scheduler: undefined as unknown as CronScheduler,
    jobs: undefined as unknown as CronJobs,
    /** A new scheduler on the same storage, as a restarted process would have. */
    async startScheduler(withLauncher = launcher): Promise<CronScheduler> {
      const scheduler = new CronScheduler({ repository, launcher: withLauncher, clock, logger: silentLogger });
      schedulers.push(scheduler);
      harness.scheduler = scheduler;
      await scheduler.start();
      return scheduler;
    },
    /** Move time, letting every scheduler finish what each timer started. */
    async runUntil(target: string): Promise<void> {
      await clock.runUntil(target, async () => {
        for (const scheduler of schedulers) await scheduler.idle();
      });
    },
    async create(scheduleExpression: string, extra: Partial<{ timezone: string; prompt: string }> = {}) {
      return harness.jobs.create(accountId, { name: 'job', agentId: 'helper', conversationKey: 'cron:test', prompt: extra.prompt ?? 'hello', scheduleExpression, timezone: extra.timezone });
    },
    async job(cronJobId: string): Promise<CronJobRecord> {
      return (await repository.get(accountId, cronJobId))!.job;
    },
    runs: (cronJobId: string) => repository.runs(accountId, cronJobId),
  };
  harness.jobs = new CronJobs({
    repository,
    agents,
    scheduler: { jobChanged: (job) => harness.scheduler.jobChanged(job), jobRemoved: (id) => harness.scheduler.jobRemoved(id) },
    now: () => clock.now(),
  });
  cleanups.push(async () => {
    for (const scheduler of schedulers) if (scheduler.isRunning) await scheduler.stop();
    await storage.close();
    await rm(folder, { recursive: true, force: true });
  });
  await harness.startScheduler();
  return harness;
}

