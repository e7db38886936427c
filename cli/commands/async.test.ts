import { describe, expect, it } from 'vitest';
import { CliError } from '../cli-error.js';
import { loadProfiles, profilesPath, saveProfile } from '../profiles.js';
import { runInProcess } from '../test-support/run-in-process.js';
import { signedInStubPerTest } from '../test-support/signed-in-stub.js';
import type { RecordedRequest, StubReply } from '../test-support/stub-service.js';


const setup = signedInStubPerTest('sk_alice');

/** The agent service's async routes: 202 for the POST, then the given statuses in turn (the last one repeats). */
function asyncService(statuses: Record<string, unknown>[]) {
  let polls = 0;
  return (request: RecordedRequest): StubReply => {
    if (request.method === 'POST') return { status: 202, body: { eventId: 'evt_1', statusUrl: 'http://agent.test/status/evt_1' } };
    const status = statuses[Math.min(polls, statuses.length - 1)];
    polls += 1;
    return { status: 200, body: { eventId: 'evt_1', ...status } };
  };
}

const completed = { status: 'completed', result: { text: 'The answer is 42.', messages: [] } };

describe('harness async', () => {
  it('queues a turn and prints its event, status URL and conversation', async () => {
    const { context, service } = await setup(asyncService([]));
    await runInProcess(context, ['async', 'helper', '-m', 'hello', '--conversation', 'c1']);
    expect(service.requests).toHaveLength(1);
    expect(service.requests[0]).toMatchObject({ method: 'POST', url: '/agents/helper/async' });
    expect(service.requests[0]?.headers.authorization).toBe('Bearer sk_alice');
    expect(JSON.parse(service.requests[0]?.body ?? '')).toEqual({ conversationKey: 'c1', message: 'hello' });
    expect(context.output()).toBe(
      'event:        evt_1\nstatus url:   http://agent.test/status/evt_1\nconversation: c1\nFollow it with: harness status evt_1 --wait\n',
    );
  });

  it('names the profile (here from HARNESS_PROFILE) and npx in the commands it prints', async () => {
    const { context } = await setup(asyncService([{ status: 'awaiting_approval', pendingApprovals: [{ approvalId: 'ap1', toolName: 'alphaSearch' }] }]), {
      env: { npm_command: 'exec', HARNESS_PROFILE: 'demo' },
    });
    const path = profilesPath(context.env, context.homeDir);
    await saveProfile(path, 'demo', (await loadProfiles(path)).default!);
    await runInProcess(context, ['async', 'helper', '-m', 'hello', '--conversation', 'c1']);
    expect(context.output()).toContain('Follow it with: npx harness --profile demo status evt_1 --wait\n');
    await runInProcess(context, ['async', 'helper', '-m', 'hello', '--conversation', 'c1', '--wait', '--interval', '1']);
    expect(context.output()).toContain('  npx harness --profile demo async helper --conversation c1 --approve ap1 --wait\n');
  });

  it('makes up a conversation key and prints one JSON line with --json', async () => {
    const { context, service } = await setup(asyncService([]));
    await runInProcess(context, ['async', 'helper', '-m', 'hello', '--json']);
    const sent = JSON.parse(service.requests[0]?.body ?? '') as { conversationKey: string };
    expect(sent.conversationKey).toMatch(/^cli-\d+-[0-9a-f]{6}$/);
    expect(JSON.parse(context.output())).toEqual({ eventId: 'evt_1', statusUrl: 'http://agent.test/status/evt_1', conversationKey: sent.conversationKey });
  });

  it('with --wait polls through queued and processing to completed and prints the text', async () => {
    const { context, service } = await setup(asyncService([{ status: 'queued' }, { status: 'processing' }, { status: 'waiting_async_tools', pendingAsyncTools: [{ resultId: 'res_1' }] }, completed]));
    await runInProcess(context, ['async', 'helper', '-m', 'hello', '--conversation', 'c1', '--wait', '--interval', '1']);
    expect(service.requests.slice(1).map((request) => `${request.method} ${request.url}`)).toEqual(Array(4).fill('GET /status/evt_1'));
    expect(service.requests[1]?.headers.authorization).toBe('Bearer sk_alice');
    // stdout carries only the answer; the progress lines go to stderr (stdout is not a terminal here).
    expect(context.output()).toBe('The answer is 42.\n');
    expect(context.errors()).toBe(
      'event evt_1 (conversation c1)\nevent evt_1: queued\nevent evt_1: running\nevent evt_1: waiting for 1 async tool\nevent evt_1: completed\n',
    );
  });

  it('with --wait --json prints the final status document', async () => {
    const { context } = await setup(asyncService([{ status: 'processing' }, completed]));
    await runInProcess(context, ['async', 'helper', '-m', 'hello', '--conversation', 'c1', '--wait', '--interval', '1', '--json']);
    expect(JSON.parse(context.output())).toEqual({ eventId: 'evt_1', ...completed, conversationKey: 'c1' });
  });

  it('with --wait fails with exit code 1 when the event failed', async () => {
    const { context } = await setup(asyncService([{ status: 'processing' }, { status: 'failed', error: 'the model is unreachable' }]));
    const run = runInProcess(context, ['async', 'helper', '-m', 'hello', '--wait', '--interval', '1']);
    await expect(run).rejects.toThrow('event evt_1 failed: the model is unreachable');
    await expect(run).rejects.toSatisfy((error) => error instanceof CliError && error.exitCode === 1);
  });

  it('with --wait stops at awaiting_approval, shows the approvals and how to answer them', async () => {
    const pendingApprovals = [{ approvalId: 'appr_1', toolCallId: 'call_1', toolName: 'delete_file', input: { path: 'a.txt' } }];
    const { context } = await setup(asyncService([{ status: 'awaiting_approval', pendingApprovals }]));
    await runInProcess(context, ['async', 'helper', '-m', 'clean up', '--conversation', 'c1', '--wait', '--interval', '1']);
    expect(context.output()).toBe(
      [
        'Event evt_1 is waiting for approval:',
        '  appr_1  delete_file {"path":"a.txt"}',
        'Answer with:',
        '  harness async helper --conversation c1 --approve appr_1 --wait',
        '  harness async helper --conversation c1 --deny appr_1 --reason "..." --wait',
        '(or approve some and deny others in one command)',
        '',
      ].join('\n'),
    );
  });

  it('answers approvals with a tool message of tool-approval-response parts', async () => {
    const { context, service } = await setup(asyncService([]));
    await runInProcess(context, ['async', 'helper', '--conversation', 'c1', '--approve', 'appr_1', '--approve', 'appr_2', '--deny', 'appr_3', '--reason', 'not now']);
    expect(JSON.parse(service.requests[0]?.body ?? '')).toEqual({
      conversationKey: 'c1',
      message: {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: 'appr_1', approved: true },
          { type: 'tool-approval-response', approvalId: 'appr_2', approved: true },
          { type: 'tool-approval-response', approvalId: 'appr_3', approved: false, reason: 'not now' },
        ],
      },
    });
  });

  it.each([
    [['async', 'helper'], 'give a message with -m TEXT'],
    [['async', 'helper', '-m', ' '], '-m needs a non-empty message'],
    [['async', 'helper', '--approve', 'appr_1'], '--approve/--deny need --conversation KEY'],
    [['async', 'helper', '-m', 'hi', '--conversation', 'c1', '--approve', 'appr_1'], '-m and --approve/--deny cannot be combined'],
    [['async', 'helper', '--conversation', 'c1', '--approve', 'a', '--deny', 'a'], 'approval a is both approved and denied'],
  ])('refuses %j as a usage error before sending anything', async (args, message) => {
    const { context, service } = await setup(asyncService([]));
    const run = runInProcess(context, args);
    await expect(run).rejects.toThrow(message);
    await expect(run).rejects.toSatisfy((error) => error instanceof CliError && error.exitCode === 2);
    expect(service.requests).toHaveLength(0);
  });

  it('shows the service error as one line', async () => {
    const { context } = await setup(() => ({ status: 404, body: { error: { code: 'not_found', message: 'Agent not found.' } } }));
    await expect(runInProcess(context, ['async', 'nope', '-m', 'hi'])).rejects.toThrow('Agent not found. (not_found, HTTP 404)');
  });

  it('stops waiting on Ctrl-C with exit code 130, and says how to resume', async () => {
    const { context, service } = await setup(asyncService([{ status: 'processing' }]));
    const run = runInProcess(context, ['async', 'helper', '-m', 'hello', '--wait', '--interval', '1']);
    await expect.poll(() => service.requests.length).toBeGreaterThan(2);
    context.shutdown('SIGINT');
    await expect(run).rejects.toThrow('stopped waiting (SIGINT); event evt_1 goes on in the service: harness status evt_1 --wait');
    await expect(run).rejects.toSatisfy((error) => error instanceof CliError && error.exitCode === 130);
  });
});
