import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { startFixtureModel, type FixtureModelServer } from '../fixtures/model-server/fixture-model-server.js';
import { startFixtureSearch, type FixtureSearchServer } from '../fixtures/search-server/fixture-search-server.js';
import type { CronRun, CronRunLauncher } from '../server/core/cron-jobs/index.js';
import { ManualClock } from '../server/core/cron-jobs/test-support/manual-clock.js';
import { createHarnessCore, type HarnessCore } from '../server/core/composition/harness-core.js';
import { defineInfrastructure } from '../server/core/infrastructure.js';
import { openTestStorage } from './support/test-storage.js';
import { buildAccountService } from '../server/http/account-service.js';
import { temporaryFolder } from './support/temporary-folder.js';
import { bearer, createAccount, testAdminSecret, testEncryptionSecret } from './support/test-services.js';

/**
 * Cron runs end to end: the real core on lowdb files in a temp folder, the fixture model over
 * HTTP, and a clock the test moves by hand (the scheduler's timers never wait for real time).
 */
const modelKey = 'sk-fixture-model-key-0123456789';
const searchKey = 'tvly-fixture-search-key-0123456789';

interface CronStack {
  clock: ManualClock;
  model: FixtureModelServer;
  search: FixtureSearchServer;
  core: HarnessCore;
  app: FastifyInstance;
  /** Stop everything (as a process exit would) and start again on the same data folder. */
  restart(options?: { wrapCronLauncher?: (launcher: CronRunLauncher) => CronRunLauncher }): Promise<void>;
  /** Move the clock, letting the scheduler finish what each timer starts. */
  runUntil(target: string): Promise<void>;
  close(): Promise<void>;
}

const stacks: CronStack[] = [];
afterEach(async () => {
  for (const stack of stacks.splice(0)) await stack.close();
});

async function startCronStack(start: string, options: { wrapCronLauncher?: (launcher: CronRunLauncher) => CronRunLauncher } = {}): Promise<CronStack> {
  const folder = await temporaryFolder();
  const model = await startFixtureModel({ apiKey: modelKey });
  const search = await startFixtureSearch({ apiKey: searchKey });
  const clock = new ManualClock(start);
  const boot = async (wrapCronLauncher?: (launcher: CronRunLauncher) => CronRunLauncher) => {
    const storage = await openTestStorage(`${folder.path}/tables`);
    const core = createHarnessCore({
      storage,
      infrastructure: defineInfrastructure('test'),
      secrets: { adminSecret: testAdminSecret, configEncryptionSecret: testEncryptionSecret },
      toolEnvironment: { alphaBaseUrl: search.baseURL },
      modelMaxRetries: 0,
      cronClock: clock,
      ...(wrapCronLauncher ? { wrapCronLauncher } : {}),
    });
    const app = buildAccountService({ core });
    await core.start();
    return { storage, core, app };
  };
  let running = await boot(options.wrapCronLauncher);
  const shutdown = async () => {
    await running.app.close();
    await running.core.stop();
    await running.storage.close();
  };
  const stack: CronStack = {
    clock,
    model,
    search,
    get core() {
      return running.core;
    },
    get app() {
      return running.app;
    },
    restart: async (restartOptions = {}) => {
      await shutdown();
      running = await boot(restartOptions.wrapCronLauncher);
    },
    runUntil: (target) => clock.runUntil(target, () => running.core.cronScheduler.idle()),
    close: async () => {
      await shutdown();
      await Promise.all([model.close(), search.close()]);
      await folder.remove();
    },
  };
  stacks.push(stack);
  return stack;
}

async function setup(start: string, agentConfig: Record<string, unknown> = {}, options: Parameters<typeof startCronStack>[1] = {}) {
  const stack = await startCronStack(start, options);
  const account = await createAccount(stack.app, 'cron-owner');
  const provider = { openai: { apiKey: modelKey, baseURL: stack.model.baseURL, model: 'fixture-model', api: 'chat' } };
  const put = await stack.app.inject({ method: 'PUT', url: '/accounts/me/agents/helper', headers: bearer(account.secret), payload: { config: { provider, ...agentConfig } } });
  expect(put.statusCode, put.body).toBe(201);
  const api = {
    async create(body: Record<string, unknown>): Promise<{ cronJobId: string; nextRunAt: string }> {
      const response = await stack.app.inject({ method: 'POST', url: '/accounts/me/cron-jobs', headers: bearer(account.secret), payload: { name: 'job', agentId: 'helper', conversationKey: 'cron:job', ...body } });
      expect(response.statusCode, response.body).toBe(201);
      return response.json();
    },
    async job(cronJobId: string): Promise<Record<string, unknown>> {
      return (await stack.app.inject({ method: 'GET', url: `/accounts/me/cron-jobs/${cronJobId}`, headers: bearer(account.secret) })).json();
    },
    async runs(cronJobId: string): Promise<CronRun[]> {
      return (await stack.app.inject({ method: 'GET', url: `/accounts/me/cron-jobs/${cronJobId}/runs`, headers: bearer(account.secret) })).json<{ runs: CronRun[] }>().runs;
    },
    /** Waits (in real time, for the model's HTTP round trips) until the newest run has ended. */
    async settledRuns(cronJobId: string): Promise<CronRun[]> {
      for (let attempt = 0; attempt < 500; attempt += 1) {
        const runs = await api.runs(cronJobId);
        if (runs.length > 0 && runs.every((run) => run.status === 'completed' || run.status === 'failed')) return runs;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`runs of ${cronJobId} did not settle: ${JSON.stringify(await api.runs(cronJobId))}`);
    },
    event: (eventId: string) => stack.core.asyncRequests.status(account.accountId, eventId),
    /** Waits (in real time) until an event's turn has ended. */
    async settledEvent(eventId: string): Promise<void> {
      for (let attempt = 0; attempt < 500; attempt += 1) {
        const { status } = (await api.event(eventId)) as { status: string };
        if (status === 'completed' || status === 'failed') return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`event ${eventId} did not settle`);
    },
  };
  return { stack, account, api };
}

describe('cron runs', () => {
  it('fires a slot once as an async turn and records the run with its event id and final status', async () => {
    const { stack, api } = await setup('2030-01-07T10:00:30Z');
    const job = await api.create({ prompt: 'hello from cron', scheduleExpression: 'cron(* * * * ? *)' });
    await stack.runUntil('2030-01-07T10:00:59Z');
    expect(stack.model.callCount()).toBe(0);
    await stack.runUntil('2030-01-07T10:01:00Z');
    const [run] = await api.settledRuns(job.cronJobId);
    expect(run).toMatchObject({ scheduledFor: '2030-01-07T10:01:00.000Z', startedAt: '2030-01-07T10:01:00.000Z', status: 'completed' });
    expect(run!.finishedAt).not.toBeNull();
    const event = await api.event(run!.eventId);
    expect(event).toMatchObject({ status: 'completed', conversationKey: 'cron:job', result: { text: 'Echo: hello from cron' } });
    expect(stack.model.callCount()).toBe(1);
    expect(await api.job(job.cronJobId)).toMatchObject({ lastRunAt: '2030-01-07T10:01:00.000Z', lastRunStatus: 'completed', nextRunAt: '2030-01-07T10:02:00.000Z' });
  });

  it('denies a needsApproval tool in a cron run: the run completes and the tool never runs', async () => {
    const { stack, api } = await setup('2030-01-07T10:00:30Z', { tools: { alphaSearch: { apiKey: searchKey, needsApproval: true } } });
    const job = await api.create({ prompt: 'search: cats', scheduleExpression: 'cron(* * * * ? *)' });
    await stack.runUntil('2030-01-07T10:01:00Z');
    const [run] = await api.settledRuns(job.cronJobId);
    expect(run!.status).toBe('completed');
    expect(run!.deniedTools).toEqual(['alphaSearch']);
    const event = await api.event(run!.eventId);
    expect(event.status).toBe('completed');
    expect(event.result?.deniedApprovals).toEqual([{ toolName: 'alphaSearch', reason: expect.stringContaining('alphaSearch') }]);
    expect(event.pendingApprovals ?? []).toEqual([]);
    expect(event.result?.text).toMatch(/^alphaSearch: /m);
    expect(stack.search.requests()).toHaveLength(0);
  });

  it('does not fire a slot again when the service restarts within its minute', async () => {
    const { stack, api } = await setup('2030-01-07T10:00:30Z');
    const job = await api.create({ prompt: 'tick', scheduleExpression: 'cron(* * * * ? *)' });
    await stack.runUntil('2030-01-07T10:01:00Z');
    await api.settledRuns(job.cronJobId);
    await stack.runUntil('2030-01-07T10:01:30Z');
    await stack.restart();
    await stack.runUntil('2030-01-07T10:01:59Z');
    expect(await api.runs(job.cronJobId)).toHaveLength(1);
    await stack.runUntil('2030-01-07T10:02:00Z');
    const runs = await api.settledRuns(job.cronJobId);
    expect(runs.map((run) => run.scheduledFor)).toEqual(['2030-01-07T10:02:00.000Z', '2030-01-07T10:01:00.000Z']);
    expect(stack.model.callCount()).toBe(2);
  });

  for (const where of ['before', 'after'] as const) {
    it(`a crash after claiming a slot, ${where} submitting its run: no loss, no double`, async () => {
      let crash!: (error: Error) => void;
      let reached!: () => void;
      const submitting = new Promise<void>((resolve) => (reached = resolve));
      const crashed = new Promise<never>((_resolve, reject) => (crash = reject));
      const hanging = (launcher: CronRunLauncher): CronRunLauncher => ({
        ...launcher,
        async submit(request) {
          if (where === 'after') await launcher.submit(request);
          reached();
          return crashed;
        },
      });
      const { stack, api } = await setup('2030-01-07T10:00:30Z', {}, { wrapCronLauncher: hanging });
      const job = await api.create({ prompt: 'exactly once', scheduleExpression: 'cron(* * * * ? *)' });
      await stack.clock.runUntil('2030-01-07T10:01:00Z');
      await submitting;
      const stopping = stack.core.cronScheduler.stop();
      crash(new Error('process killed'));
      await stopping;
      const [claimed] = await api.runs(job.cronJobId);
      expect(claimed).toMatchObject({ status: 'running', scheduledFor: '2030-01-07T10:01:00.000Z' });

      await stack.runUntil('2030-01-07T10:01:20Z');
      // A run that got through goes on in this process; let its turn end before the restart,
      // which would otherwise find it running and fail it (on slower storage it may still be).
      if (where === 'after') await api.settledEvent(claimed!.eventId);
      await stack.restart();
      const runs = await api.settledRuns(job.cronJobId);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ eventId: claimed!.eventId, status: 'completed' });
      expect(await api.event(claimed!.eventId)).toMatchObject({ status: 'completed', result: { text: 'Echo: exactly once' } });
      expect(stack.model.callCount()).toBe(1);
    });
  }

  it('after downtime fires once, recorded as a catch-up with the missed slots, then keeps its schedule', async () => {
    const { stack, api } = await setup('2030-01-07T09:59:30Z');
    const job = await api.create({ prompt: 'hourly', scheduleExpression: 'cron(0 * * * ? *)' });
    await stack.runUntil('2030-01-07T10:00:00Z');
    await api.settledRuns(job.cronJobId);
    await stack.core.stop();
    // Down from 10:00 to 14:20: 11:00, 12:00, 13:00 and 14:00 passed.
    stack.clock.jump('2030-01-07T14:20:00Z');
    await stack.restart();
    await stack.runUntil('2030-01-07T14:20:01Z');
    const runs = await api.settledRuns(job.cronJobId);
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ scheduledFor: '2030-01-07T11:00:00.000Z', startedAt: '2030-01-07T14:20:00.000Z', status: 'completed', catchUp: { missedSlots: 4, lastMissedSlot: '2030-01-07T14:00:00.000Z' } });
    expect(stack.model.callCount()).toBe(2);
    expect((await api.job(job.cronJobId)).nextRunAt).toBe('2030-01-07T15:00:00.000Z');
    await stack.runUntil('2030-01-07T15:00:00Z');
    expect((await api.settledRuns(job.cronJobId))[0]).toMatchObject({ scheduledFor: '2030-01-07T15:00:00.000Z', status: 'completed' });
    expect((await api.runs(job.cronJobId))[0]!.catchUp).toBeUndefined();
  });

  it('an at() job fires once and is completed; pause, resume, update and delete act at once', async () => {
    const { stack, api, account } = await setup('2030-01-07T10:00:00Z');
    const once = await api.create({ prompt: 'once', scheduleExpression: 'at(2030-01-07T11:30:00)', timezone: 'Europe/Berlin' });
    expect(once.nextRunAt).toBe('2030-01-07T10:30:00.000Z');
    const rate = await api.create({ prompt: 'every ten', scheduleExpression: 'rate(10 minutes)' });
    expect(rate.nextRunAt).toBe('2030-01-07T10:00:00.000Z');
    await stack.runUntil('2030-01-07T10:30:00Z');
    await api.settledRuns(once.cronJobId);
    expect(await api.job(once.cronJobId)).toMatchObject({ status: 'completed', nextRunAt: null, lastRunStatus: 'completed' });
    expect((await api.settledRuns(rate.cronJobId)).map((run) => run.scheduledFor.slice(11, 16))).toEqual(['10:30', '10:20', '10:10', '10:00']);

    const patch = (cronJobId: string, payload: Record<string, unknown>) => stack.app.inject({ method: 'PATCH', url: `/accounts/me/cron-jobs/${cronJobId}`, headers: bearer(account.secret), payload }).then((response) => response.json<Record<string, unknown>>());
    expect(await patch(rate.cronJobId, { status: 'paused' })).toMatchObject({ status: 'paused', nextRunAt: null });
    await stack.runUntil('2030-01-07T11:05:30Z');
    expect(await api.runs(rate.cronJobId)).toHaveLength(4);
    // A resume fires at once: the slot of its own minute.
    expect(await patch(rate.cronJobId, { status: 'active' })).toMatchObject({ status: 'active', nextRunAt: '2030-01-07T11:05:00.000Z' });
    expect(await patch(rate.cronJobId, { prompt: 'changed prompt' })).toMatchObject({ nextRunAt: '2030-01-07T11:05:00.000Z' });
    await stack.runUntil('2030-01-07T11:06:00Z');
    const [afterResume] = await api.settledRuns(rate.cronJobId);
    expect(afterResume!.scheduledFor).toBe('2030-01-07T11:05:00.000Z');
    expect((await api.event(afterResume!.eventId)).result?.text).toBe('Echo: changed prompt');

    expect(await patch(rate.cronJobId, { scheduleExpression: 'cron(0 12 * * ? *)' })).toMatchObject({ nextRunAt: '2030-01-07T12:00:00.000Z' });
    await stack.runUntil('2030-01-07T11:59:00Z');
    expect(await api.runs(rate.cronJobId)).toHaveLength(5);
    const deleted = await stack.app.inject({ method: 'DELETE', url: `/accounts/me/cron-jobs/${rate.cronJobId}`, headers: bearer(account.secret) });
    expect(deleted.statusCode).toBe(204);
    await stack.runUntil('2030-01-07T13:00:00Z');
    expect(stack.model.callCount()).toBe(6);
    expect(stack.core.cronScheduler.scheduledJobs).toBe(0);
  });

  it("a disabled account's job fires nothing: the run is recorded failed with the reason and the model is never called", async () => {
    const { stack, account, api } = await setup('2030-01-07T10:00:30Z');
    const job = await api.create({ prompt: 'should not run', scheduleExpression: 'cron(* * * * ? *)' });
    const admin = (disabled: boolean) => stack.app.inject({ method: 'PATCH', url: `/admin/accounts/${account.accountId}`, headers: bearer(testAdminSecret), payload: { disabled } });
    expect((await admin(true)).statusCode).toBe(200);
    await stack.runUntil('2030-01-07T10:01:00Z');
    await stack.core.asyncWorker.idle();
    expect(stack.model.callCount()).toBe(0);
    expect((await admin(false)).statusCode).toBe(200);
    const [run] = await api.settledRuns(job.cronJobId);
    expect(run).toMatchObject({ scheduledFor: '2030-01-07T10:01:00.000Z', status: 'failed', error: 'This account is disabled; it runs no turns.' });
  });
});
