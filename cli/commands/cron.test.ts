import { describe, expect, it } from 'vitest';
import { createTestContext } from '../test-support/test-context.js';
import { runInProcess } from '../test-support/run-in-process.js';
import { signedInStubPerTest } from '../test-support/signed-in-stub.js';
import type { RecordedRequest, StubReply } from '../test-support/stub-service.js';


const job = {
  cronJobId: 'cron_1',
  name: 'digest',
  agentId: 'helper',
  conversationKey: 'cron:digest',
  prompt: 'Summarise.',
  scheduleExpression: 'cron(0 9 ? * MON-FRI *)',
  timezone: 'Europe/Berlin',
  status: 'active',
  nextRunAt: '2030-01-07T08:00:00.000Z',
  lastRunAt: null,
  lastRunStatus: null,
  createdAt: 't0',
  updatedAt: 't1',
};

const signIn = signedInStubPerTest('sk');
const setup = (handler: (request: RecordedRequest) => StubReply = () => ({ status: 200, body: job })) => signIn(handler, { env: { TZ: 'America/New_York' } });

describe('harness cron', () => {
  it('creates a job from flags', async () => {
    const { context, service } = await setup(() => ({ status: 201, body: job }));
    await runInProcess(context, ['cron', 'create', '--name', 'digest', '--agent', 'helper', '--conversation', 'cron:digest', '--prompt', 'Summarise.', '--schedule', 'cron(0 9 ? * MON-FRI *)', '--tz', 'Europe/Berlin']);
    expect(service.requests[0]).toMatchObject({ method: 'POST', url: '/accounts/me/cron-jobs' });
    expect(JSON.parse(service.requests[0]!.body)).toEqual({ name: 'digest', agentId: 'helper', conversationKey: 'cron:digest', prompt: 'Summarise.', scheduleExpression: 'cron(0 9 ? * MON-FRI *)', timezone: 'Europe/Berlin' });
    expect(context.output()).toContain('Created cron job cron_1.');
    expect(context.output()).toContain('next run:     2030-01-07 09:00 GMT+1');
    expect(context.output()).toContain('next (local): 2030-01-07 03:00 EST');
  });

  it("lists jobs with the next run in the job's zone and in local time", async () => {
    const { context } = await setup(() => ({ status: 200, body: { cronJobs: [job, { ...job, cronJobId: 'cron_2', name: 'paused one', status: 'paused', nextRunAt: null, lastRunStatus: 'completed' }] } }));
    await runInProcess(context, ['cron', 'list']);
    expect(context.output()).toBe(
      [
        'ID      NAME        AGENT   SCHEDULE                 STATUS  NEXT (JOB ZONE)         NEXT (LOCAL)          LAST',
        'cron_1  digest      helper  cron(0 9 ? * MON-FRI *)  active  2030-01-07 09:00 GMT+1  2030-01-07 03:00 EST  -',
        'cron_2  paused one  helper  cron(0 9 ? * MON-FRI *)  paused  -                       -                     completed',
        '',
      ].join('\n'),
    );
  });

  it('pauses, resumes and updates through PATCH', async () => {
    const { context, service } = await setup();
    await runInProcess(context, ['cron', 'pause', 'cron_1']);
    await runInProcess(context, ['cron', 'resume', 'cron_1', '--json']);
    await runInProcess(context, ['cron', 'update', 'cron_1', '--schedule', 'rate(5 minutes)', '--tz', 'UTC', '--prompt', 'New.']);
    expect(service.requests.map((request) => [request.method, request.url, JSON.parse(request.body)])).toEqual([
      ['PATCH', '/accounts/me/cron-jobs/cron_1', { status: 'paused' }],
      ['PATCH', '/accounts/me/cron-jobs/cron_1', { status: 'active' }],
      ['PATCH', '/accounts/me/cron-jobs/cron_1', { prompt: 'New.', scheduleExpression: 'rate(5 minutes)', timezone: 'UTC' }],
    ]);
    expect(context.output()).toContain('Paused cron job cron_1.');
    expect(context.output()).toContain('Updated cron job cron_1.');
    await expect(runInProcess(context, ['cron', 'update', 'cron_1'])).rejects.toThrow('nothing to change');
  });

  it('gets, deletes, and shows runs with catch-ups and errors', async () => {
    const runs = [
      { runId: 'run_2', eventId: 'evt_2', scheduledFor: '2030-01-07T11:00:00.000Z', startedAt: '2030-01-07T14:20:00.000Z', finishedAt: '2030-01-07T14:20:02.000Z', status: 'completed', catchUp: { missedSlots: 4, lastMissedSlot: '2030-01-07T14:00:00.000Z' } },
      { runId: 'run_1', eventId: 'evt_1', scheduledFor: '2030-01-07T10:00:00.000Z', startedAt: '2030-01-07T10:00:00.000Z', finishedAt: '2030-01-07T10:00:01.000Z', status: 'failed', error: 'model failed' },
    ];
    const { context, service } = await setup((request) => (request.url.endsWith('/runs') ? { status: 200, body: { runs } } : request.method === 'DELETE' ? { status: 204 } : { status: 200, body: job }));
    await runInProcess(context, ['cron', 'get', 'cron_1', '--json']);
    expect(JSON.parse(context.output())).toEqual(job);
    await runInProcess(context, ['cron', 'runs', 'cron_1']);
    expect(context.output()).toContain('catch-up for 4 missed slots');
    expect(context.output()).toContain('failed     evt_1  model failed');
    await runInProcess(context, ['cron', 'delete', 'cron_1']);
    expect(context.output()).toContain('Deleted cron job cron_1.');
    expect(service.requests.map((request) => `${request.method} ${request.url}`)).toEqual(['GET /accounts/me/cron-jobs/cron_1', 'GET /accounts/me/cron-jobs/cron_1/runs', 'DELETE /accounts/me/cron-jobs/cron_1']);
  });

  it('shows the service error for a bad expression', async () => {
    const { context } = await setup(() => ({ status: 400, body: { error: { code: 'invalid_request', message: 'scheduleExpression: the minutes field "60" is invalid: 60 is outside 0-59.' } } }));
    await expect(runInProcess(context, ['cron', 'create', '--name', 'n', '--agent', 'a', '--conversation', 'c', '--prompt', 'p', '--schedule', 'cron(60 * * * ? *)'])).rejects.toThrow(
      'scheduleExpression: the minutes field "60" is invalid: 60 is outside 0-59. (invalid_request, HTTP 400)',
    );
  });

  describe('next (no server)', () => {
    it('prints the next fire times in the zone and locally, skipping a time the clocks skip', async () => {
      const context = await createTestContext({ env: { TZ: 'Asia/Tokyo' } });
      await runInProcess(context, ['cron', 'next', 'cron(30 2 * * ? *)', '--tz', 'America/New_York', '-n', '3', '--from', '2025-03-08T00:00:00Z']);
      expect(context.output()).toBe(
        [
          'TIME (America/New_York)  LOCAL (Asia/Tokyo)      UTC',
          '2025-03-08 02:30 EST     2025-03-08 16:30 GMT+9  2025-03-08T07:30:00.000Z',
          '2025-03-10 02:30 EDT     2025-03-10 15:30 GMT+9  2025-03-10T06:30:00.000Z',
          '2025-03-11 02:30 EDT     2025-03-11 15:30 GMT+9  2025-03-11T06:30:00.000Z',
          '',
        ].join('\n'),
      );
    });

    it('prints JSON, and defaults to five UTC times', async () => {
      const context = await createTestContext();
      await runInProcess(context, ['cron', 'next', 'rate(90 minutes)', '--from', '2030-01-01T00:00:30Z', '--json']);
      expect(JSON.parse(context.output())).toEqual({
        scheduleExpression: 'rate(90 minutes)',
        timezone: 'UTC',
        fireTimes: ['2030-01-01T00:00:00.000Z', '2030-01-01T01:30:00.000Z', '2030-01-01T03:00:00.000Z', '2030-01-01T04:30:00.000Z', '2030-01-01T06:00:00.000Z'],
      });
    });

    it('is a usage error (exit 2) for a bad expression or zone', async () => {
      const context = await createTestContext();
      await expect(runInProcess(context, ['cron', 'next', 'cron(0 9 * * MON *)'])).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^scheduleExpression: /) });
      await expect(runInProcess(context, ['cron', 'next', 'rate(1 hour)', '--tz', 'Mars/Base'])).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^--tz: /) });
      await expect(runInProcess(context, ['cron', 'next', 'rate(1 hour)', '--from', 'yesterday'])).rejects.toThrow('--from yesterday is not an ISO 8601 instant');
    });

    it('says when nothing is left', async () => {
      const context = await createTestContext();
      await runInProcess(context, ['cron', 'next', 'at(2020-01-01T00:00:00)', '--from', '2030-01-01T00:00:00Z']);
      expect(context.output()).toBe('at(2020-01-01T00:00:00) has no fire time after 2030-01-01T00:00:00.000Z.\n');
    });
  });
});
