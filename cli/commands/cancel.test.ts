import { describe, expect, it } from 'vitest';
import { ApiError, CliError } from '../cli-error.js';
import { runInProcess } from '../test-support/run-in-process.js';
import { signedInStubPerTest } from '../test-support/signed-in-stub.js';

const setup = signedInStubPerTest('sk_alice');

describe('harness cancel', () => {
  it('POSTs the cancel route of an event and says what was cancelled', async () => {
    const { context, service } = await setup(() => ({ status: 202, body: { cancelled: true, state: 'running', eventId: 'evt/1', conversationKey: 'k', turnId: 'turn_1', closedApprovals: [], closedAsyncTools: [] } }));
    await runInProcess(context, ['cancel', 'evt/1']);
    expect(service.requests).toHaveLength(1);
    expect(service.requests[0]).toMatchObject({ method: 'POST', url: '/status/evt%2F1/cancel' });
    expect(service.requests[0]?.headers.authorization).toBe('Bearer sk_alice');
    expect(context.output()).toBe('cancelled:    the running turn stops; its stream ends with status cancelled\nevent:        evt/1\nconversation: k\n');
  });

  it('cancels by conversation and lists what a waiting run had open; --json prints the answer', async () => {
    const answer = { cancelled: true, state: 'waiting', conversationKey: 'my chat', closedApprovals: ['ap1'], closedAsyncTools: ['res_1', 'res_2'] };
    const { context, service } = await setup(() => ({ status: 202, body: answer }));
    await runInProcess(context, ['cancel', '--conversation', 'my chat', '--agent', 'helper']);
    expect(service.requests[0]).toMatchObject({ method: 'POST', url: '/agents/helper/conversations/my%20chat/cancel' });
    expect(context.output()).toContain('closed approvals:   ap1\nclosed async tools: res_1, res_2\n');

    const json = await setup(() => ({ status: 202, body: answer }));
    await runInProcess(json.context, ['cancel', '--json', '--conversation', 'my chat', '--agent', 'helper']);
    expect(JSON.parse(json.context.output())).toEqual(answer);
  });

  it("fails with the service's message when nothing runs (409)", async () => {
    const { context } = await setup(() => ({ status: 409, body: { error: { code: 'conflict', message: 'Nothing is running for event evt_1 (it is completed).' } } }));
    const failure = await runInProcess(context, ['cancel', 'evt_1']).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).message).toContain('Nothing is running');
  });

  it('refuses an event id together with --conversation, and --conversation without --agent', async () => {
    const { context, service } = await setup(() => ({ status: 500, body: {} }));
    for (const args of [['cancel', 'evt_1', '--conversation', 'k', '--agent', 'a'], ['cancel', '--conversation', 'k'], ['cancel']]) {
      const failure = await runInProcess(context, args).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(CliError);
      expect((failure as CliError).exitCode).toBe(2);
    }
    expect(service.requests).toHaveLength(0);
  });
});
