import { describe, expect, it } from 'vitest';
import { CliError } from '../cli-error.js';
import { runInProcess } from '../test-support/run-in-process.js';
import { signedInStubPerTest } from '../test-support/signed-in-stub.js';

const setup = signedInStubPerTest('sk_alice');

const report = {
  from: '2025-03-01',
  to: '2025-03-02',
  usage: [
    { agentId: 'helper', day: '2025-03-01', inputTokens: 1200, outputTokens: 80, totalTokens: 1280, turns: 3 },
    { agentId: 'writer', day: '2025-03-01', inputTokens: 50, outputTokens: 5, totalTokens: 55, turns: 1 },
    { agentId: 'helper', day: '2025-03-02', inputTokens: 10, outputTokens: 2, totalTokens: 12, turns: 1 },
  ],
};

describe('harness usage', () => {
  it('asks the account service for the range and prints a table per day and agent with the totals', async () => {
    const { context, service } = await setup(() => ({ status: 200, body: report }));
    await runInProcess(context, ['usage', '--from', '2025-03-01', '--to', '2025-03-02']);
    expect(service.requests[0]).toMatchObject({ method: 'GET', url: '/accounts/me/usage?from=2025-03-01&to=2025-03-02' });
    expect(service.requests[0]?.headers.authorization).toBe('Bearer sk_alice');
    expect(context.output()).toBe(
      [
        'Token usage from 2025-03-01 to 2025-03-02 (UTC days):',
        'DAY         AGENT   INPUT  OUTPUT  TOTAL  TURNS',
        '2025-03-01  helper  1200   80      1280   3',
        '2025-03-01  writer  50     5       55     1',
        '2025-03-02  helper  10     2       12     1',
        'total               1260   87      1347   5',
        '',
      ].join('\n'),
    );
  });

  it('prints the service document with --json, sends no range by default, and says so when nothing was used', async () => {
    const { context, service } = await setup(() => ({ status: 200, body: report }));
    await runInProcess(context, ['usage', '--json']);
    expect(service.requests[0]?.url).toBe('/accounts/me/usage');
    expect(JSON.parse(context.output())).toEqual(report);

    const empty = await setup(() => ({ status: 200, body: { from: '2025-02-01', to: '2025-03-02', usage: [] } }));
    await runInProcess(empty.context, ['usage']);
    expect(empty.context.output()).toBe('No token usage from 2025-02-01 to 2025-03-02.\n');
  });

  it('refuses a date that is not YYYY-MM-DD before calling, and passes on the service refusal', async () => {
    const { context, service } = await setup(() => ({ status: 400, body: { error: { code: 'invalid_request', message: 'from (2025-03-05) must not be after to (2025-03-01)' } } }));
    await expect(runInProcess(context, ['usage', '--from', 'yesterday'])).rejects.toThrow();
    expect(service.requests).toHaveLength(0);
    const refusal = await runInProcess(context, ['usage', '--from', '2025-03-05', '--to', '2025-03-01']).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CliError);
    expect((refusal as Error).message).toContain('must not be after');
  });
});
