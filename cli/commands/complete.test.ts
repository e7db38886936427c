import { describe, expect, it } from 'vitest';
import { CommanderError } from 'commander';
import { CliError } from '../cli-error.js';
import { runInProcess } from '../test-support/run-in-process.js';
import { signedInStubPerTest } from '../test-support/signed-in-stub.js';
import type { RecordedRequest, StubReply } from '../test-support/stub-service.js';


const signIn = signedInStubPerTest('sk_alice');
const setup = (handler: (request: RecordedRequest) => StubReply, stdin?: string) => signIn(handler, { stdin });

const accepted = (): StubReply => ({ status: 202, body: { resultId: 'res_1', status: 'completed', continuation: 'accepted' } });

describe('harness complete', () => {
  it('completes a result with the JSON response and the profile bearer', async () => {
    const { context, service } = await setup(accepted);
    await runInProcess(context, ['complete', 'res_1', '--response', '{"answer": 42}']);
    expect(service.requests[0]).toMatchObject({ method: 'POST', url: '/async-tools/res_1/complete' });
    expect(service.requests[0]?.headers.authorization).toBe('Bearer sk_alice');
    expect(service.requests[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(service.requests[0]?.body ?? '')).toEqual({ status: 'completed', response: { answer: 42 } });
    expect(context.output()).toBe('Settled res_1 as completed; the parent turn continues now.\n');
  });

  it('fails a result with --error and says what the parent waits for', async () => {
    const { context, service } = await setup(() => ({ status: 202, body: { resultId: 'res_1', status: 'failed', continuation: 'waiting_for_async_tools', pendingCount: 2 } }));
    await runInProcess(context, ['complete', 'res_1', '--error', 'upstream broke']);
    expect(JSON.parse(service.requests[0]?.body ?? '')).toEqual({ status: 'failed', error: 'upstream broke' });
    expect(context.output()).toBe('Settled res_1 as failed; the parent turn waits for 2 more async tools.\n');
  });

  it('prints the reply with --json, and reads the response from stdin with --response -', async () => {
    const { context, service } = await setup(() => ({ status: 202, body: { resultId: 'res_1', status: 'completed', continuation: 'waiting_for_async_tools', pendingCount: 0 } }), '{"from": "stdin"}\n');
    await runInProcess(context, ['complete', 'res_1', '--response', '-', '--json']);
    expect(JSON.parse(service.requests[0]?.body ?? '')).toEqual({ status: 'completed', response: { from: 'stdin' } });
    expect(JSON.parse(context.output())).toEqual({ resultId: 'res_1', status: 'completed', continuation: 'waiting_for_async_tools', pendingCount: 0 });
  });

  it('shows a 409 (already settled) and a 404 as one-line errors', async () => {
    const { context } = await setup(() => ({ status: 409, body: { error: { code: 'conflict', message: 'Async tool result res_1 is already completed.' } } }));
    await expect(runInProcess(context, ['complete', 'res_1', '--response', '{}'])).rejects.toThrow(
      'async tool result res_1 is already settled; a result is settled once (conflict, HTTP 409)',
    );
    const missing = await setup(() => ({ status: 404, body: { error: { code: 'not_found', message: 'Not found.' } } }));
    await expect(runInProcess(missing.context, ['complete', 'res_9', '--error', 'x'])).rejects.toThrow('no async tool result res_9 for this account (not_found, HTTP 404)');
  });

  it.each([
    [['complete', 'res_1', '--response', '{oops'], '--response is not valid JSON'],
    [['complete', 'res_1', '--response', '[1, 2]'], '--response must be a JSON object'],
    [['complete', 'res_1', '--response', '"text"'], '--response must be a JSON object'],
    [['complete', 'res_1'], 'give --response JSON (completed) or --error MESSAGE (failed)'],
  ])('refuses %j with exit code 2 before sending anything', async (args, message) => {
    const { context, service } = await setup(accepted);
    const run = runInProcess(context, args);
    await expect(run).rejects.toThrow(message);
    await expect(run).rejects.toSatisfy((error) => error instanceof CliError && error.exitCode === 2);
    expect(service.requests).toHaveLength(0);
  });

  it('refuses --response together with --error', async () => {
    const { context, service } = await setup(accepted);
    await expect(runInProcess(context, ['complete', 'res_1', '--response', '{}', '--error', 'x'])).rejects.toBeInstanceOf(CommanderError);
    expect(context.errors()).toContain("option '--response <json>' cannot be used with option '--error <message>'");
    expect(service.requests).toHaveLength(0);
  });
});
