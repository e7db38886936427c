import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createAccount, startTestServices, type TestServices } from './support/test-services.js';

/** The cron job endpoints of the account service, and every validation 400. */
let services: TestServices;
let alice: { accountId: string; secret: string };
let bob: { accountId: string; secret: string };

const valid = { name: 'daily digest', agentId: 'helper', conversationKey: 'cron:daily', prompt: 'Summarise the day.', scheduleExpression: 'cron(0 9 ? * MON-FRI *)', timezone: 'Europe/Berlin' };

async function send(method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT', url: string, secret: string, payload?: unknown) {
  return services.accountApp.inject({ method, url, headers: bearer(secret), ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
}

async function createJob(overrides: Record<string, unknown> = {}, secret = alice.secret) {
  const response = await send('POST', '/accounts/me/cron-jobs', secret, { ...valid, ...overrides });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<Record<string, unknown> & { cronJobId: string }>();
}

beforeAll(async () => {
  services = await startTestServices();
  alice = await createAccount(services.accountApp, 'alice');
  bob = await createAccount(services.accountApp, 'bob');
  for (const account of [alice, bob]) {
    const put = await send('PUT', '/accounts/me/agents/helper', account.secret, { config: { system: 'Be brief.' } });
    expect(put.statusCode).toBe(201);
  }
  expect((await send('PUT', '/accounts/me/agents/bobs-only', bob.secret, { config: {} })).statusCode).toBe(201);
});

afterAll(async () => {
  await services.close();
});

describe('cron job endpoints', () => {
  it('creates a job (201) in the contract shape, with its next run', async () => {
    const job = await createJob();
    expect(Object.keys(job).sort()).toEqual(['agentId', 'conversationKey', 'createdAt', 'cronJobId', 'lastRunAt', 'lastRunStatus', 'name', 'nextRunAt', 'prompt', 'scheduleExpression', 'status', 'timezone', 'updatedAt']);
    expect(job).toMatchObject({ ...valid, status: 'active', lastRunAt: null, lastRunStatus: null });
    expect(job.cronJobId).toMatch(/^cron_/);
    const next = new Date(String(job.nextRunAt));
    expect(next.getTime()).toBeGreaterThan(Date.now());
    // 09:00 in Berlin is 07:00 or 08:00 UTC, on a weekday.
    expect([7, 8]).toContain(next.getUTCHours());
    expect([1, 2, 3, 4, 5]).toContain(next.getUTCDay());
  });

  it('defaults the zone to UTC', async () => {
    const { timezone: _timezone, ...withoutZone } = valid;
    const response = await send('POST', '/accounts/me/cron-jobs', alice.secret, withoutZone);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ timezone: 'UTC' });
  });

  it('lists, gets, updates, deletes, and shows runs', async () => {
    const job = await createJob({ name: 'lifecycle' });
    const list = await send('GET', '/accounts/me/cron-jobs', alice.secret);
    expect(list.statusCode).toBe(200);
    expect(list.json<{ cronJobs: { cronJobId: string }[] }>().cronJobs.map((entry) => entry.cronJobId)).toContain(job.cronJobId);
    const got = await send('GET', `/accounts/me/cron-jobs/${job.cronJobId}`, alice.secret);
    expect(got.json()).toEqual(job);

    const renamed = await send('PATCH', `/accounts/me/cron-jobs/${job.cronJobId}`, alice.secret, { name: 'renamed', prompt: 'New prompt.', conversationKey: 'cron:other' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'renamed', prompt: 'New prompt.', conversationKey: 'cron:other', nextRunAt: job.nextRunAt });

    const paused = await send('PATCH', `/accounts/me/cron-jobs/${job.cronJobId}`, alice.secret, { status: 'paused' });
    expect(paused.json()).toMatchObject({ status: 'paused', nextRunAt: null });
    const resumed = await send('PATCH', `/accounts/me/cron-jobs/${job.cronJobId}`, alice.secret, { status: 'active' });
    expect(resumed.json()).toMatchObject({ status: 'active', nextRunAt: job.nextRunAt });

    const rescheduled = await send('PATCH', `/accounts/me/cron-jobs/${job.cronJobId}`, alice.secret, { scheduleExpression: 'rate(5 minutes)', timezone: 'Asia/Tokyo' });
    expect(rescheduled.statusCode).toBe(200);
    const nextRunAt = Date.parse(rescheduled.json<{ nextRunAt: string }>().nextRunAt);
    // rate() starts counting at the change, at the next whole minute.
    expect(nextRunAt - Date.now()).toBeLessThanOrEqual(60_000);

    const runs = await send('GET', `/accounts/me/cron-jobs/${job.cronJobId}/runs`, alice.secret);
    expect(runs.statusCode).toBe(200);
    expect(runs.json()).toEqual({ runs: [] });

    const deleted = await send('DELETE', `/accounts/me/cron-jobs/${job.cronJobId}`, alice.secret);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await send('GET', `/accounts/me/cron-jobs/${job.cronJobId}`, alice.secret)).statusCode).toBe(404);
    expect((await send('DELETE', `/accounts/me/cron-jobs/${job.cronJobId}`, alice.secret)).statusCode).toBe(404);
  });

  it("answers 404 for another account's job, and for unknown ids", async () => {
    const job = await createJob({ name: 'private' });
    const url = `/accounts/me/cron-jobs/${job.cronJobId}`;
    for (const [method, path, payload] of [
      ['GET', url, undefined],
      ['PATCH', url, { name: 'stolen' }],
      ['DELETE', url, undefined],
      ['GET', `${url}/runs`, undefined],
    ] as const) {
      const response = await send(method, path, bob.secret, payload);
      expect(response.statusCode, `${method} ${path}`).toBe(404);
      expect(response.json()).toEqual({ error: { code: 'not_found', message: `No cron job ${job.cronJobId}.` } });
    }
    expect(bob && (await send('GET', '/accounts/me/cron-jobs', bob.secret)).json<{ cronJobs: unknown[] }>().cronJobs).toEqual([]);
    expect((await send('GET', '/accounts/me/cron-jobs/cron_unknown', alice.secret)).statusCode).toBe(404);
    expect((await send('GET', '/accounts/me/cron-jobs/not-an-id', alice.secret)).statusCode).toBe(404);
    expect((await send('GET', url, alice.secret)).json()).toMatchObject({ name: 'private' });
  });

  it('needs the bearer', async () => {
    const response = await services.accountApp.inject({ method: 'GET', url: '/accounts/me/cron-jobs' });
    expect(response.statusCode).toBe(401);
  });

  it('refuses to delete an agent that cron jobs still name (409 naming them)', async () => {
    expect((await send('PUT', '/accounts/me/agents/busy', alice.secret, { config: {} })).statusCode).toBe(201);
    const first = await createJob({ name: 'first', agentId: 'busy' });
    const second = await createJob({ name: 'second', agentId: 'busy' });
    const refused = await send('DELETE', '/accounts/me/agents/busy', alice.secret);
    expect(refused.statusCode).toBe(409);
    const message = refused.json<{ error: { code: string; message: string } }>().error.message;
    expect(refused.json()).toMatchObject({ error: { code: 'conflict' } });
    expect(message).toContain(`"first" (${first.cronJobId})`);
    expect(message).toContain(`"second" (${second.cronJobId})`);
    await send('DELETE', `/accounts/me/cron-jobs/${first.cronJobId}`, alice.secret);
    await send('DELETE', `/accounts/me/cron-jobs/${second.cronJobId}`, alice.secret);
    expect((await send('DELETE', '/accounts/me/agents/busy', alice.secret)).statusCode).toBe(204);
  });

  describe('validation: a 400 naming the field', () => {
    const creation: [string, Record<string, unknown>, string | RegExp][] = [
      ['missing name', { name: undefined }, 'body.name is required'],
      ['missing agentId', { agentId: undefined }, 'body.agentId is required'],
      ['missing conversationKey', { conversationKey: undefined }, 'body.conversationKey is required'],
      ['missing prompt', { prompt: undefined }, 'body.prompt is required'],
      ['missing scheduleExpression', { scheduleExpression: undefined }, 'body.scheduleExpression is required'],
      ['a name that is not a string', { name: 5 }, 'body.name must be string'],
      ['an unknown field', { color: 'red' }, 'body.color is not allowed here'],
      ['an empty name', { name: '   ' }, 'name: must not be empty.'],
      ['a name too long', { name: 'n'.repeat(129) }, 'name: must be at most 128 characters (got 129).'],
      ['a name with a control character', { name: 'a\u0007b' }, 'name: must not contain control characters.'],
      ['an empty prompt', { prompt: '' }, 'prompt: must not be empty.'],
      ['a prompt too long', { prompt: 'p'.repeat(100_001) }, 'prompt: must be at most 100000 characters (got 100001).'],
      ['a prompt with a control character', { prompt: 'line\u0000' }, 'prompt: must not contain control characters.'],
      ['an empty conversationKey', { conversationKey: '' }, 'conversationKey: must be 1-256 characters.'],
      ['a conversationKey too long', { conversationKey: 'k'.repeat(257) }, 'conversationKey: must be at most 256 characters (got 257).'],
      ['a conversationKey with a control character', { conversationKey: 'a\nb' }, 'conversationKey: must not contain control characters.'],
      ['a malformed agentId', { agentId: '-bad id' }, /^agentId: must be 1-64 characters/],
      ['an unknown agentId', { agentId: 'nobody' }, 'agentId: no agent "nobody" in this account.'],
      ["another account's agentId", { agentId: 'bobs-only' }, 'agentId: no agent "bobs-only" in this account.'],
      ['an invalid zone', { timezone: 'Mars/Olympus' }, /^timezone: /],
      ['an offset for a zone', { timezone: '+05:00' }, /^timezone: /],
      ['a minute out of range', { scheduleExpression: 'cron(60 9 * * ? *)' }, /^scheduleExpression: .*minutes.*60/],
      ['both day fields set', { scheduleExpression: 'cron(0 9 * * MON *)' }, /^scheduleExpression: .*\?/],
      ['five cron fields', { scheduleExpression: 'cron(0 9 * * ?)' }, /^scheduleExpression: /],
      ['a plural with 1', { scheduleExpression: 'rate(1 minutes)' }, /^scheduleExpression: /],
      ['a rate under a minute', { scheduleExpression: 'rate(30 seconds)' }, /^scheduleExpression: /],
      ['an at() in the past', { scheduleExpression: 'at(2020-01-01T09:00:00)' }, /^scheduleExpression: .*past/],
      ['not an expression', { scheduleExpression: 'every day' }, /^scheduleExpression: /],
    ];
    for (const [label, overrides, message] of creation) {
      it(`POST: ${label}`, async () => {
        const body = Object.fromEntries(Object.entries({ ...valid, ...overrides }).filter(([, value]) => value !== undefined));
        const response = await send('POST', '/accounts/me/cron-jobs', alice.secret, body);
        expect(response.statusCode, response.body).toBe(400);
        const error = response.json<{ error: { code: string; message: string } }>().error;
        expect(error.code).toBe('invalid_request');
        if (typeof message === 'string') expect(error.message).toBe(message);
        else expect(error.message).toMatch(message);
      });
    }

    const patches: [string, Record<string, unknown>, string | RegExp][] = [
      ['an empty patch', {}, /^body: send at least one of/],
      ['a status other than active or paused', { status: 'completed' }, /^body\.status must be equal to one of the allowed values/],
      ['agentId (it cannot change)', { agentId: 'other' }, 'body.agentId is not allowed here'],
      ['an empty name', { name: '' }, 'name: must not be empty.'],
      ['an empty prompt', { prompt: ' ' }, 'prompt: must not be empty.'],
      ['a bad conversationKey', { conversationKey: '' }, 'conversationKey: must be 1-256 characters.'],
      ['a bad zone', { timezone: 'Nowhere/Town' }, /^timezone: /],
      ['a bad expression', { scheduleExpression: 'cron(0 25 * * ? *)' }, /^scheduleExpression: .*hours/],
      ['an at() in the past', { scheduleExpression: 'at(2020-01-01T00:00:00)' }, /^scheduleExpression: .*past/],
    ];
    for (const [label, patch, message] of patches) {
      it(`PATCH: ${label}`, async () => {
        const job = await createJob({ name: `patch ${label}` });
        const response = await send('PATCH', `/accounts/me/cron-jobs/${job.cronJobId}`, alice.secret, patch);
        expect(response.statusCode, response.body).toBe(400);
        const error = response.json<{ error: { code: string; message: string } }>().error;
        if (typeof message === 'string') expect(error.message).toBe(message);
        else expect(error.message).toMatch(message);
        expect((await send('GET', `/accounts/me/cron-jobs/${job.cronJobId}`, alice.secret)).json()).toEqual(job);
      });
    }
  });
});
