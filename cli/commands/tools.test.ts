import { describe, expect, it } from 'vitest';
import { runInProcess } from '../test-support/run-in-process.js';
import { signedInStubPerTest } from '../test-support/signed-in-stub.js';
import type { RecordedRequest, StubReply } from '../test-support/stub-service.js';


const agent = (tools: Record<string, unknown>) => ({ agentId: 'helper', config: { tools }, createdAt: 't0', updatedAt: 't1' });

const signIn = signedInStubPerTest('account-secret');
const setup = (handler: (request: RecordedRequest) => StubReply, stdin?: string) => signIn(handler, { stdin });

describe('harness tools list', () => {
  it('prints a table of the configured tools', async () => {
    const { context, service } = await setup(() => ({
      status: 200,
      body: agent({ alphaSearch: { apiKey: { redacted: true, last4: 'abcd' } }, test_async: { enabled: false, async: true } }),
    }));
    await runInProcess(context, ['tools', 'list', 'helper']);
    expect(service.requests[0]).toMatchObject({ method: 'GET', url: '/accounts/me/agents/helper' });
    expect(service.requests[0]?.headers.authorization).toBe('Bearer account-secret');
    expect(context.output()).toBe(
      [
        'TOOL         ENABLED  ASYNC  EXECUTION        APPROVAL  KEY',
        'alphaSearch  yes      no     same-invocation  no        set',
        'test_async   no       yes    same-invocation  no        -',
        '',
      ].join('\n'),
    );
  });

  it('prints the rows as JSON with --json', async () => {
    const { context } = await setup(() => ({ status: 200, body: agent({ betaSearch: {} }) }));
    await runInProcess(context, ['tools', 'list', 'helper', '--json']);
    expect(JSON.parse(context.output())).toEqual({
      agentId: 'helper',
      tools: [{ tool: 'betaSearch', enabled: true, async: false, execution: 'same-invocation', needsApproval: false, keySet: false }],
    });
  });
});

describe('harness tools set', () => {
  it('sends a merge patch of only the changed fields and prints the new row', async () => {
    const { context, service } = await setup(() => ({
      status: 200,
      body: agent({ alphaSearch: { enabled: true, maxResults: 5, needsApproval: true, apiKey: { redacted: true } } }),
    }));
    await runInProcess(context, ['tools', 'set', 'helper', 'alphaSearch', '--enable', '--max-results', '5', '--needs-approval', '--option', 'topic=news']);
    const request = service.requests[0];
    expect(request).toMatchObject({ method: 'PATCH', url: '/accounts/me/agents/helper' });
    expect(request?.headers['content-type']).toBe('application/merge-patch+json');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      config: { tools: { alphaSearch: { enabled: true, needsApproval: true, maxResults: 5, topic: 'news' } } },
    });
    expect(context.output()).toBe(
      ['TOOL         ENABLED  ASYNC  EXECUTION        APPROVAL  KEY', 'alphaSearch  yes      no     same-invocation  yes       set', ''].join('\n'),
    );
  });

  it('reads the API key from stdin without its trailing newline', async () => {
    const { context, service } = await setup(() => ({ status: 200, body: agent({ alphaSearch: { apiKey: { redacted: true, last4: '6789' } } }) }), 'tvly-123456789\n');
    await runInProcess(context, ['tools', 'set', 'helper', 'alphaSearch', '--api-key-stdin', '--json']);
    expect(JSON.parse(service.requests[0]?.body ?? '')).toEqual({ config: { tools: { alphaSearch: { apiKey: 'tvly-123456789' } } } });
    expect(JSON.parse(context.output())).toMatchObject({ agentId: 'helper', tool: { tool: 'alphaSearch', keySet: true, keyLast4: '6789' } });
    expect(context.output()).not.toContain('tvly-123456789');
  });

  it('refuses an empty key from stdin and sends nothing', async () => {
    const { context, service } = await setup(() => ({ status: 200, body: agent({}) }), '\n');
    await expect(runInProcess(context, ['tools', 'set', 'helper', 'alphaSearch', '--api-key-stdin'])).rejects.toThrow(/empty key/);
    expect(service.requests).toHaveLength(0);
  });

  it('sends false for --disable, --no-async and --no-needs-approval', async () => {
    const { context, service } = await setup(() => ({ status: 200, body: agent({ test_async: { enabled: false } }) }));
    await runInProcess(context, ['tools', 'set', 'helper', 'test_async', '--disable', '--no-async', '--no-needs-approval', '--execution', 'same-invocation']);
    expect(JSON.parse(service.requests[0]?.body ?? '')).toEqual({
      config: { tools: { test_async: { enabled: false, async: false, execution: 'same-invocation', needsApproval: false } } },
    });
  });

  it('refuses a call that changes nothing before contacting the service', async () => {
    const { context, service } = await setup(() => ({ status: 200, body: agent({}) }));
    await expect(runInProcess(context, ['tools', 'set', 'helper', 'alphaSearch'])).rejects.toThrow(/nothing to change/);
    expect(service.requests).toHaveLength(0);
  });

  it('shows the service error message, code and status', async () => {
    const { context } = await setup(() => ({ status: 400, body: { error: { code: 'invalid_request', message: 'Unknown tool "nope" in config.tools.' } } }));
    await expect(runInProcess(context, ['tools', 'set', 'helper', 'nope', '--enable'])).rejects.toThrow(
      'Unknown tool "nope" in config.tools. (invalid_request, HTTP 400)',
    );
  });
});
