import { describe, expect, it } from 'vitest';
import { CliError } from '../cli-error.js';
import { loadProfiles, profilesPath, saveProfile } from '../profiles.js';
import { runInProcess } from '../test-support/run-in-process.js';
import { signedInStubPerTest } from '../test-support/signed-in-stub.js';
import type { StubReply } from '../test-support/stub-service.js';


const setup = signedInStubPerTest('sk_alice');

function statuses(list: Record<string, unknown>[]) {
  let polls = 0;
  return (): StubReply => ({ status: 200, body: { eventId: 'evt/1', ...list[Math.min(polls++, list.length - 1)] } });
}

describe('harness status', () => {
  it('makes one GET and shows the status, pending async tools and nothing else', async () => {
    const { context, service } = await setup(statuses([{ status: 'waiting_async_tools', pendingAsyncTools: [{ resultId: 'res_1', toolName: 'test_external_async' }, { resultId: 'res_2' }] }]));
    await runInProcess(context, ['status', 'evt/1']);
    expect(service.requests).toHaveLength(1);
    expect(service.requests[0]).toMatchObject({ method: 'GET', url: '/status/evt%2F1' });
    expect(service.requests[0]?.headers.authorization).toBe('Bearer sk_alice');
    expect(context.output()).toBe('event:               evt/1\nstatus:              waiting_async_tools\npending async tools: res_1 (test_external_async), res_2\n');
  });

  it('shows the text of a completed event and the error of a failed one, exit 0 without --wait', async () => {
    const { context } = await setup(statuses([{ status: 'completed', result: { text: 'Done.', messages: [] } }]));
    await runInProcess(context, ['status', 'evt/1']);
    expect(context.output()).toBe('event:  evt/1\nstatus: completed\n\nDone.\n');

    const failed = await setup(statuses([{ status: 'failed', error: 'service restarted' }]));
    await runInProcess(failed.context, ['status', 'evt/1']);
    expect(failed.context.output()).toBe('event:  evt/1\nstatus: failed\nerror:  service restarted\n');
  });

  it('puts each text block of a completed turn on its own line (the service runs them together in result.text)', async () => {
    const messages = [
      { role: 'assistant', content: [{ type: 'text', text: 'Searching.' }, { type: 'tool-call', toolCallId: 't1', toolName: 'alphaSearch', input: { query: 'x' } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'alphaSearch', output: { type: 'json', value: {} } }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Found three.' }] },
    ];
    const { context } = await setup(statuses([{ status: 'completed', result: { text: 'Searching.Found three.', messages } }]));
    await runInProcess(context, ['status', 'evt/1']);
    expect(context.output()).toBe('event:  evt/1\nstatus: completed\n\nSearching.\nFound three.\n');

    const waited = await setup(statuses([{ status: 'completed', result: { text: 'Searching.Found three.', messages } }]));
    await runInProcess(waited.context, ['status', 'evt/1', '--wait', '--interval', '1']);
    expect(waited.context.output()).toBe('Searching.\nFound three.\n');
  });

  it('shows pending approvals with the commands that answer them, for this conversation and profile', async () => {
    const { context } = await setup(
      statuses([{ status: 'awaiting_approval', conversationKey: 'my chat', pendingApprovals: [{ approvalId: 'ap1', toolName: 'alphaSearch', input: { query: 'x' } }] }]),
      { env: { npm_command: 'exec' } },
    );
    const path = profilesPath(context.env, context.homeDir);
    await saveProfile(path, 'demo', (await loadProfiles(path)).default!);
    await runInProcess(context, ['--profile', 'demo', 'status', 'evt/1']);
    expect(context.output()).toBe(
      [
        'event:  evt/1',
        'status: awaiting_approval',
        'pending approvals:',
        '  ap1  alphaSearch {"query":"x"}',
        'Answer with:',
        "  npx harness --profile demo async <agentId> --conversation 'my chat' --approve ap1 --wait",
        `  npx harness --profile demo async <agentId> --conversation 'my chat' --deny ap1 --reason "..." --wait`,
        '(or approve some and deny others in one command)',
        '',
      ].join('\n'),
    );
  });

  it('prints the status document with --json', async () => {
    const { context } = await setup(statuses([{ status: 'queued' }]));
    await runInProcess(context, ['status', 'evt/1', '--json']);
    expect(JSON.parse(context.output())).toEqual({ eventId: 'evt/1', status: 'queued' });
  });

  it('with --wait polls until completed', async () => {
    const { context, service } = await setup(statuses([{ status: 'queued' }, { status: 'processing' }, { status: 'completed', result: { text: 'Done.' } }]));
    await runInProcess(context, ['status', 'evt/1', '--wait', '--interval', '1']);
    expect(service.requests).toHaveLength(3);
    expect(context.output()).toBe('Done.\n');
    expect(context.errors()).toBe('event evt/1: queued\nevent evt/1: running\nevent evt/1: completed\n');
  });

  it('with --wait exits 1 when the event failed, after printing the document with --json', async () => {
    const { context } = await setup(statuses([{ status: 'processing' }, { status: 'failed', error: { message: 'tool timed out' } }]));
    const run = runInProcess(context, ['status', 'evt/1', '--wait', '--interval', '1', '--json']);
    await expect(run).rejects.toSatisfy((error) => error instanceof CliError && error.exitCode === 1 && error.message === 'event evt/1 failed: tool timed out');
    expect(JSON.parse(context.output())).toMatchObject({ eventId: 'evt/1', status: 'failed' });
  });

  it('keeps polling through a passing 5xx, and stops at once at a 404', async () => {
    let calls = 0;
    const { context } = await setup(() => {
      calls += 1;
      if (calls === 1) return { status: 503, body: { error: { code: 'internal', message: 'restarting' } } };
      return { status: 200, body: { eventId: 'evt/1', status: 'completed', result: { text: 'ok' } } };
    });
    await runInProcess(context, ['status', 'evt/1', '--wait', '--interval', '1']);
    expect(context.output()).toBe('ok\n');

    const missing = await setup(() => ({ status: 404, body: { error: { code: 'not_found', message: 'Event not found.' } } }));
    await expect(runInProcess(missing.context, ['status', 'evt/1', '--wait', '--interval', '1'])).rejects.toThrow('Event not found. (not_found, HTTP 404)');
    expect(missing.service.requests).toHaveLength(1);
  });
});
