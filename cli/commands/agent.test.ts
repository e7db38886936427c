import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../test-support/run-in-process.js';
import { signedInStubPerTest } from '../test-support/signed-in-stub.js';
import type { RecordedRequest, StubReply } from '../test-support/stub-service.js';


const helper = { agentId: 'helper', config: { system: 'Be brief.', tools: { test_async: {}, alphaSearch: { enabled: false } } }, createdAt: 't0', updatedAt: 't1' };

const signIn = signedInStubPerTest('sk');
const setup = (handler: (request: RecordedRequest) => StubReply, stdin?: string) => signIn(handler, { stdin });

describe('harness agent', () => {
  it('lists agents with their enabled tools', async () => {
    const { context } = await setup(() => ({ status: 200, body: { agents: [helper] } }));
    await runInProcess(context, ['agent', 'list']);
    expect(context.output()).toBe('AGENT   TOOLS       UPDATED\nhelper  test_async  t1\n');
  });

  it('says how to create the first agent when there are none', async () => {
    const { context } = await setup(() => ({ status: 200, body: { agents: [] } }));
    await runInProcess(context, ['agent', 'list']);
    expect(context.output()).toMatch(/No agents yet/);
  });

  it('gets one agent as JSON', async () => {
    const { context, service } = await setup(() => ({ status: 200, body: helper }));
    await runInProcess(context, ['agent', 'get', 'helper', '--json']);
    expect(service.requests[0]?.url).toBe('/accounts/me/agents/helper');
    expect(JSON.parse(context.output())).toEqual(helper);
  });

  it('puts the config object from a file as {config} and prints the stored config, redacted as the service shows it', async () => {
    const stored = { ...helper, config: { ...helper.config, provider: { anthropic: { apiKey: { redacted: true, last4: 'f00d' } } }, model: { provider: 'anthropic', id: 'claude-sonnet-4-5' } } };
    const { context, service } = await setup(() => ({ status: 201, body: stored }));
    const file = join(context.homeDir, 'config.json');
    const sent = { ...helper.config, provider: { anthropic: { apiKey: 'sk-ant-secret-0123f00d' } }, model: { provider: 'anthropic', id: 'claude-sonnet-4-5' } };
    await writeFile(file, JSON.stringify(sent));
    await runInProcess(context, ['agent', 'put', 'helper', '--file', file]);
    expect(service.requests[0]).toMatchObject({ method: 'PUT', url: '/accounts/me/agents/helper' });
    expect(JSON.parse(service.requests[0]?.body ?? '')).toEqual({ config: sent });
    expect(context.output()).toBe(`Saved agent helper (tools: test_async).\nconfig:\n${JSON.stringify(stored.config, null, 2)}\n`);
    expect(context.output()).not.toContain('sk-ant-secret');
  });

  it('prints the whole stored agent with --json', async () => {
    const { context } = await setup(() => ({ status: 200, body: helper }), '{"system":"Be brief."}');
    await runInProcess(context, ['agent', 'put', 'helper', '--file', '-', '--json']);
    expect(JSON.parse(context.output())).toEqual(helper);
  });

  it('reads the config from stdin with --file -', async () => {
    const { context, service } = await setup(() => ({ status: 200, body: helper }), '{"system":"hi"}');
    await runInProcess(context, ['agent', 'put', 'helper', '--file', '-']);
    expect(JSON.parse(service.requests[0]?.body ?? '')).toEqual({ config: { system: 'hi' } });
  });

  it('refuses a file that is not a JSON object, naming it', async () => {
    const { context, service } = await setup(() => ({ status: 200, body: helper }));
    const file = join(context.homeDir, 'bad.json');
    await writeFile(file, '[1]');
    await expect(runInProcess(context, ['agent', 'put', 'helper', '--file', file])).rejects.toThrow(`${file} must hold the agent config as a JSON object`);
    await writeFile(file, '{oops');
    await expect(runInProcess(context, ['agent', 'put', 'helper', '--file', file])).rejects.toThrow(`${file} is not valid JSON`);
    expect(service.requests).toHaveLength(0);
  });

  it('deletes an agent', async () => {
    const { context, service } = await setup(() => ({ status: 204 }));
    await runInProcess(context, ['agent', 'delete', 'helper', '--json']);
    expect(service.requests[0]).toMatchObject({ method: 'DELETE', url: '/accounts/me/agents/helper' });
    expect(JSON.parse(context.output())).toEqual({ agentId: 'helper', deleted: true });
  });

  it('encodes the agent id in the path', async () => {
    const { context, service } = await setup(() => ({ status: 404, body: { error: { code: 'not_found', message: 'Agent not found.' } } }));
    await expect(runInProcess(context, ['agent', 'get', 'a/b'])).rejects.toThrow('Agent not found. (not_found, HTTP 404)');
    expect(service.requests[0]?.url).toBe('/accounts/me/agents/a%2Fb');
  });

  it('lists completion webhook deliveries with the last outcome of each', async () => {
    const deliveries = [
      { deliveryId: 'whd_2', eventId: 'evt_2', eventStatus: 'failed', state: 'pending', attempts: [{ attempt: 1, error: 'connect ECONNREFUSED 127.0.0.1:1' }], updatedAt: 't2' },
      { deliveryId: 'whd_1', eventId: 'evt_1', eventStatus: 'completed', state: 'delivered', attempts: [{ attempt: 1, statusCode: 500 }, { attempt: 2, statusCode: 200 }], updatedAt: 't1' },
      { deliveryId: 'whd_0', eventId: 'evt_0', eventStatus: 'completed', state: 'failed', attempts: [], error: 'the account is disabled', updatedAt: 't0' },
    ];
    const { context, service } = await setup(() => ({ status: 200, body: { deliveries } }));
    await runInProcess(context, ['agent', 'webhooks', 'helper', '--limit', '3']);
    expect(service.requests[0]).toMatchObject({ method: 'GET', url: '/agents/helper/webhook-deliveries?limit=3' });
    expect(context.output()).toBe(
      [
        'EVENT  FINISH     STATE      ATTEMPTS  LAST                              UPDATED',
        'evt_2  failed     pending    1         connect ECONNREFUSED 127.0.0.1:1  t2',
        'evt_1  completed  delivered  2         HTTP 200                          t1',
        'evt_0  completed  failed     0         the account is disabled           t0',
        '',
      ].join('\n'),
    );
    await expect(runInProcess(context, ['agent', 'webhooks', 'helper', '--limit', 'many'])).rejects.toThrow('--limit must be a number from 1 to 200');
  });
});
