import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { requestJson } from './support/json-request.js';
import { startRecordingWorker } from './support/recording-worker.js';
import { collectChunks } from './support/sse-chunks.js';
import { waitUntil } from './support/wait-until.js';

interface Answer {
  status: string;
  text: string;
  eventId?: string;
  statusUrl?: string;
  pendingAsyncTools?: { resultId: string; status: string }[];
  error?: { code: string; message: string };
}

/** The status row once it says one of `wanted`; between reads, lets the async worker finish what it runs. */
function waitForStatus(stack: ChatStack, secret: string, statusUrl: string, wanted: string[]): Promise<Record<string, unknown>> {
  return waitUntil(
    `the status to reach ${wanted.join('/')}`,
    async () => {
      const { body } = await requestJson(statusUrl, { secret });
      if (wanted.includes(String(body.status))) return body;
      await stack.core.asyncWorker.idle();
      return undefined;
    },
    { timeoutMs: 4_000, intervalMs: 20 },
  );
}

describe('async tools', () => {
  let stack: ChatStack;
  let secret: string;
  beforeEach(async () => {
    stack = await startChatStack();
    secret = (await stack.createAccount('asyncer')).secret;
  });
  afterEach(async () => {
    await stack.close();
  });

  const externalAgent = (workerUrl: string, extra: Record<string, unknown> = {}) => ({
    provider: stack.provider(),
    tools: {
      test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: secret, workerUrl },
      ...extra,
    },
  });

  it('same-invocation: the tool answers "processing" at once, the turn waits, and the result reaches the model and the stream', async () => {
    await stack.putAgent(secret, 'inline', { provider: stack.provider(), tools: { test_async: { async: true, durationMs: 30 } } });
    const response = await stack.chat(secret, 'inline', { conversationKey: 'k', message: 'call test_async {"label":"slow job"}' }, 'text/event-stream');
    const chunks = await collectChunks(response);
    const first = chunks.find((chunk) => chunk.type === 'tool-output-available') as { output: { resultId: string; status: string } };
    expect(first.output).toEqual({ resultId: expect.stringMatching(/^res_grp_/), status: 'processing' });
    const settled = chunks.find((chunk) => chunk.type === 'data-async-tool-settled') as { data: { resultId: string; status: string; response: { label: string } } };
    expect(settled.data).toMatchObject({ resultId: first.output.resultId, status: 'completed', response: { label: 'slow job' } });
    const text = chunks.filter((chunk) => chunk.type === 'text-delta').map((chunk) => (chunk as { delta: string }).delta).join('');
    expect(text).toContain('async_tool_result: {"resultId":"' + first.output.resultId + '","toolName":"test_async","status":"completed"');
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'completed' } });
    const outside = await fetch(`${stack.agentUrl}/async-tools/${first.output.resultId}/complete`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'completed', response: {} }),
    });
    expect(outside.status).toBe(409);
  });

  it('fails same-invocation work that outlives the turn’s time bound, with a clear error', async () => {
    await stack.close();
    stack = await startChatStack({ sameInvocationTimeoutMs: 50 });
    secret = (await stack.createAccount('impatient')).secret;
    await stack.putAgent(secret, 'slow', { provider: stack.provider(), tools: { test_async: { async: true, durationMs: 5_000 } } });
    const answer = (await (await stack.chat(secret, 'slow', { conversationKey: 'k', message: 'call test_async {}' })).json()) as Answer;
    expect(answer.status).toBe('completed');
    expect(answer.text).toContain('"status":"failed","error":"test_async did not finish within the turn\'s time limit for async tools."');
  });

  it('refuses SSE for an agent with an external-dispatch tool', async () => {
    await stack.putAgent(secret, 'dispatcher', externalAgent('http://127.0.0.1:9/dispatch'));
    const response = await stack.chat(secret, 'dispatcher', { conversationKey: 'k', message: 'hi' }, 'text/event-stream');
    expect(response.status).toBe(400);
    expect(((await response.json()) as Answer).error?.message).toContain('external-dispatch');
  });

  it('external-dispatch: 50 siblings completed concurrently give exactly one continuation', async () => {
    const worker = await startRecordingWorker();
    try {
      await stack.putAgent(secret, 'fanout', externalAgent(worker.dispatchUrl));
      const answer = (await (await stack.chat(secret, 'fanout', { conversationKey: 'k', message: 'call x50 test_external_async {"task":"part"}' })).json()) as Answer;
      expect(answer.status).toBe('waiting_async_tools');
      expect(answer.pendingAsyncTools).toHaveLength(50);
      expect(worker.dispatches).toHaveLength(50);
      expect(worker.dispatches[0]?.completeUrl).toBe(`${stack.agentUrl}/async-tools/${worker.dispatches[0]?.resultId}/complete`);
      const callsBefore = stack.model.callCount();
      const results = await Promise.all(worker.dispatches.map((dispatch) => worker.complete(dispatch, { status: 'completed', response: { part: dispatch.resultId } })));
      expect(results.every((result) => result.status === 202)).toBe(true);
      expect(results.filter((result) => result.body.continuation === 'accepted')).toHaveLength(1);
      const final = await waitForStatus(stack, secret, answer.statusUrl!, ['completed', 'failed']);
      expect(final.status).toBe('completed');
      await stack.core.asyncWorker.idle();
      expect(stack.model.callCount() - callsBefore).toBe(1);
      expect(String((final.result as { text: string }).text).match(/async_tool_result: /g)).toHaveLength(50);
    } finally {
      await worker.close();
    }
  });

  it('a completion that arrives before the seal is counted when the group is sealed', async () => {
    let early: { status: number; body: Record<string, unknown> } | undefined;
    const worker = await startRecordingWorker(async (dispatch) => {
      early = await fetch(dispatch.completeUrl, {
        method: 'POST',
        headers: { ...dispatch.completionHeaders, 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'completed', response: { fast: true } }),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }));
    });
    try {
      await stack.putAgent(secret, 'fast', externalAgent(worker.dispatchUrl));
      const answer = (await (await stack.chat(secret, 'fast', { conversationKey: 'k', message: 'call test_external_async {"task":"quick"}' })).json()) as Answer;
      expect(early).toEqual({ status: 202, body: expect.objectContaining({ continuation: 'waiting_for_async_tools', pendingCount: 0 }) });
      const final = await waitForStatus(stack, secret, answer.statusUrl!, ['completed', 'failed']);
      expect(String((final.result as { text: string }).text)).toContain('"response":{"fast":true}');
    } finally {
      await worker.close();
    }
  });

  it('the continuation sees a failed sibling; a second completion is 409; another account gets 404', async () => {
    const worker = await startRecordingWorker();
    try {
      await stack.putAgent(secret, 'mixed', externalAgent(worker.dispatchUrl));
      const answer = (await (await stack.chat(secret, 'mixed', { conversationKey: 'k', message: 'call x2 test_external_async {}' })).json()) as Answer;
      const [first, second] = worker.dispatches;
      const other = await stack.createAccount('intruder');
      const foreign = await fetch(first!.completeUrl, { method: 'POST', headers: { authorization: `Bearer ${other.secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ status: 'completed', response: {} }) });
      expect(foreign.status).toBe(404);
      const unknown = await fetch(`${stack.agentUrl}/async-tools/res_grp_000000000000000000000000_0/complete`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ status: 'failed', error: 'x' }) });
      expect(unknown.status).toBe(404);
      const invalid = await worker.complete(first!, { status: 'completed' });
      expect(invalid.status).toBe(400);
      await worker.complete(first!, { status: 'failed', error: 'the worker gave up' });
      expect((await worker.complete(first!, { status: 'completed', response: {} })).status).toBe(409);
      await worker.complete(second!, { status: 'completed', response: { ok: 1 } });
      const final = await waitForStatus(stack, secret, answer.statusUrl!, ['completed', 'failed']);
      expect(String((final.result as { text: string }).text)).toContain('"status":"failed","error":"the worker gave up"');
    } finally {
      await worker.close();
    }
  });

  it('a restart between dispatch and completion still continues the parent', async () => {
    const worker = await startRecordingWorker();
    try {
      await stack.putAgent(secret, 'durable', externalAgent(worker.dispatchUrl));
      const answer = (await (await stack.chat(secret, 'durable', { conversationKey: 'k', message: 'call test_external_async {"task":"survive"}' })).json()) as Answer;
      await stack.restart();
      const completeUrl = worker.dispatches[0]!.completeUrl.replace(/^http:\/\/[^/]+/, stack.agentUrl);
      const response = await fetch(completeUrl, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ status: 'completed', response: { survived: true } }) });
      expect(((await response.json()) as { continuation: string }).continuation).toBe('accepted');
      const statusUrl = answer.statusUrl!.replace(/^http:\/\/[^/]+/, stack.agentUrl);
      const final = await waitForStatus(stack, secret, statusUrl, ['completed', 'failed']);
      expect(String((final.result as { text: string }).text)).toContain('"survived":true');
    } finally {
      await worker.close();
    }
  });

  it('/async runs a turn on the worker and /status reports it; unknown and foreign events are 404', async () => {
    await stack.putAgent(secret, 'plain', { provider: stack.provider() });
    const accepted = await fetch(`${stack.agentUrl}/agents/plain/async`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ conversationKey: 'k', message: 'hello async' }),
    });
    expect(accepted.status).toBe(202);
    const { eventId, statusUrl } = (await accepted.json()) as { eventId: string; statusUrl: string };
    expect(statusUrl).toBe(`${stack.agentUrl}/status/${eventId}`);
    const final = await waitForStatus(stack, secret, statusUrl, ['completed', 'failed']);
    expect(final).toMatchObject({ eventId, status: 'completed', result: { text: 'Echo: hello async' } });
    const other = await stack.createAccount('peeker');
    expect((await fetch(statusUrl, { headers: { authorization: `Bearer ${other.secret}` } })).status).toBe(404);
    expect((await fetch(`${stack.agentUrl}/status/evt_unknown`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(404);
    const missingAgent = await fetch(`${stack.agentUrl}/agents/nobody/async`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ conversationKey: 'k', message: 'x' }) });
    expect(missingAgent.status).toBe(404);
  });

  it('an /async turn that stops for approval is answered through /async again', async () => {
    await stack.putAgent(secret, 'careful', { provider: stack.provider(), tools: { test_async: { needsApproval: true, durationMs: 1 } } });
    const post = (body: unknown) =>
      fetch(`${stack.agentUrl}/agents/careful/async`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
        (response) => response.json() as Promise<{ statusUrl: string }>,
      );
    const first = await waitForStatus(stack, secret, (await post({ conversationKey: 'k', message: 'call test_async {}' })).statusUrl, ['awaiting_approval', 'failed']);
    const approvalId = (first.pendingApprovals as { approvalId: string }[])[0]!.approvalId;
    const second = await waitForStatus(
      stack,
      secret,
      (await post({ conversationKey: 'k', message: { role: 'tool', content: [{ type: 'tool-approval-response', approvalId, approved: true }] } })).statusUrl,
      ['completed', 'failed'],
    );
    expect(String((second.result as { text: string }).text)).toContain('test_async: {"label":null');
  });
});
