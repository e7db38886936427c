import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatStack, searchKey, type ChatStack } from './support/chat-stack.js';
import { requestJson } from './support/json-request.js';
import { startRecordingWorker } from './support/recording-worker.js';
import { collectChunks, uiChunkStream } from './support/sse-chunks.js';
import { testAdminSecret } from './support/test-services.js';
import { waitUntil } from './support/wait-until.js';

interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  estimatedTokens?: number;
}

interface StatusRow {
  status: string;
  error?: string;
  usage: Usage;
}

interface FinishMetadata {
  status: string;
  finishReason?: string;
  error?: { code: string; message: string };
}

const today = () => new Date().toISOString().slice(0, 10);

/**
 * The daily token budget holds on every model call (issue 23): checked before each step of
 * a tool loop, before an approval answer or a continuation runs the model again, and for a
 * subagent; and a model call cut short by a cancel is counted, estimated.
 */
describe('daily token budget on every model call', () => {
  let stack: ChatStack;
  let worker: Awaited<ReturnType<typeof startRecordingWorker>>;

  beforeAll(async () => {
    stack = await startChatStack();
    worker = await startRecordingWorker();
  });
  afterAll(async () => {
    stack.model.setOptions({ chunkDelayMs: 0 });
    await worker.close();
    await stack.close();
  });

  /** An account of its own per test, so one test's spending does not weigh on another. */
  const account = async (name: string, agents: Record<string, Record<string, unknown>>) => {
    const own = await stack.createAccount(name);
    for (const [agentId, config] of Object.entries(agents)) await stack.putAgent(own.secret, agentId, { provider: stack.provider('chat'), ...config });
    const limit = async (tokensPerDay: number | null) => {
      const answer = await requestJson(`${stack.accountUrl}/admin/accounts/${own.accountId}`, { method: 'PATCH', secret: testAdminSecret, body: { tokensPerDay } });
      expect(answer.status).toBe(200);
    };
    return { ...own, limit };
  };
  const chat = (secret: string, agentId: string, body: unknown) => requestJson<{ status: string; eventId?: string; pendingApprovals?: { approvalId: string }[]; error?: { code: string; message: string } }>(`${stack.agentUrl}/agents/${agentId}/chat`, { secret, body });
  const statusOf = async (secret: string, eventId: string) => (await requestJson<StatusRow>(`${stack.agentUrl}/status/${eventId}`, { secret })).body;
  const todaysUsage = async (secret: string) =>
    (await requestJson<{ usage: (Usage & { agentId: string; turns: number })[] }>(`${stack.accountUrl}/accounts/me/usage?from=${today()}&to=${today()}`, { secret })).body.usage;
  /** Model calls made while `work` runs. */
  const modelCalls = async (work: () => Promise<void>): Promise<number> => {
    const before = stack.model.callCount();
    await work();
    return stack.model.callCount() - before;
  };
  const finishOf = (chunks: UIMessageChunk[]) => (chunks.at(-1) as { type: string; messageMetadata: FinishMetadata }).messageMetadata;

  it('stops a multi-step tool loop at the step boundary once the budget is spent: finish budget_exhausted, what streamed is kept', async () => {
    const own = await account('looper', { looper: { tools: { alphaSearch: { apiKey: searchKey, maxResults: 1 } } } });
    // Over the first call's estimate while it streams (~22 tokens: the messages and the tool input,
    // so it is not stopped mid-call), under what the fixture reports for it (145, tool definitions included).
    await own.limit(100);
    let chunks: UIMessageChunk[] = [];
    // Without the check the loop made 4 calls (3 searches and the answer).
    const calls = await modelCalls(async () => {
      const response = await stack.chat(own.secret, 'looper', { conversationKey: 'k', message: 'search: a\nthen search: b\nthen search: c' }, 'text/event-stream');
      expect(response.status).toBe(200);
      chunks = await collectChunks(response);
    });
    expect(calls).toBe(1);
    expect(finishOf(chunks)).toMatchObject({ status: 'failed', finishReason: 'budget_exhausted', error: { code: 'rate_limited' } });
    expect(finishOf(chunks).error?.message).toContain('daily token budget is spent');
    const stored = (await requestJson<{ messages: { role: string }[] }>(`${stack.agentUrl}/agents/looper/conversations/k`, { secret: own.secret })).body.messages;
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    const [row] = await todaysUsage(own.secret);
    expect(row).toMatchObject({ agentId: 'looper', turns: 1 });
    // The JSON answer of a turn the budget refuses or stops is a 429, as a new turn's.
    expect((await chat(own.secret, 'looper', { conversationKey: 'k', message: 'more' })).status).toBe(429);
  });

  it('refuses an approval answer (429) once the budget is spent, without calling the model', async () => {
    const own = await account('approver', { asker: { tools: { alphaSearch: { apiKey: searchKey, needsApproval: true, maxResults: 1 } } } });
    const first = await chat(own.secret, 'asker', { conversationKey: 'k', message: 'search: cats' });
    expect(first.body.status).toBe('awaiting_approval');
    await own.limit(1);
    let answer!: Awaited<ReturnType<typeof chat>>;
    const calls = await modelCalls(async () => {
      const approvalId = first.body.pendingApprovals![0]!.approvalId;
      answer = await chat(own.secret, 'asker', { conversationKey: 'k', message: { role: 'tool', content: [{ type: 'tool-approval-response', approvalId, approved: true }] } });
    });
    expect(answer.status).toBe(429);
    expect(answer.body.error?.message).toContain('daily token budget is spent');
    expect(calls).toBe(0);
    // Not consumed: lifted, the same answer goes through.
    await own.limit(null);
    const approvalId = first.body.pendingApprovals![0]!.approvalId;
    expect((await chat(own.secret, 'asker', { conversationKey: 'k', message: { role: 'tool', content: [{ type: 'tool-approval-response', approvalId, approved: true }] } })).body.status).toBe('completed');
  });

  it('ends a continuation after async tools failed, naming the budget, without calling the model', async () => {
    const own = await account('continuer', {});
    await stack.putAgent(own.secret, 'dispatcher', {
      provider: stack.provider('chat'),
      tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: own.secret, workerUrl: worker.dispatchUrl } },
    });
    const dispatchedBefore = worker.dispatches.length;
    const waiting = await chat(own.secret, 'dispatcher', { conversationKey: 'k', message: 'call test_external_async {"task":"t"}' });
    expect(waiting.body.status).toBe('waiting_async_tools');
    await own.limit(1);
    let row!: StatusRow;
    const calls = await modelCalls(async () => {
      expect((await worker.complete(worker.dispatches[dispatchedBefore]!, { status: 'completed', response: { done: true } })).status).toBe(202);
      row = await waitUntil('the continuation to end', async () => {
        await stack.core.asyncWorker.idle();
        const current = await statusOf(own.secret, waiting.body.eventId!);
        return current.status === 'waiting_async_tools' ? undefined : current;
      });
    });
    expect(calls).toBe(0);
    expect(row.status).toBe('failed');
    expect(row.error).toContain('daily token budget is spent');
  });

  it("stops a caller whose subagent spent the budget, and refuses the subagent's next run", async () => {
    const own = await account('boss', {
      talker: {},
      boss: { subagent: { agents: { talker: { description: 'Talks' } } } },
    });
    // Over each call's estimate while it streams (the boss's ~50, the subagent's ~10), under the two calls' reported 296.
    await own.limit(100);
    let chunks: UIMessageChunk[] = [];
    // Without the checks: the boss, the subagent, the boss again (its second subagent refused) and its answer, 4 calls.
    const calls = await modelCalls(async () => {
      const message = 'call run_subagent {"agentId":"talker","message":"hello"}\nthen call run_subagent {"agentId":"talker","message":"again"}';
      chunks = await collectChunks(await stack.chat(own.secret, 'boss', { conversationKey: 'k', message }, 'text/event-stream'));
    });
    // The boss's first call and the subagent's, started while that call was still open: no further call.
    expect(calls).toBe(2);
    expect(finishOf(chunks)).toMatchObject({ status: 'failed', finishReason: 'budget_exhausted' });
    const rows = await todaysUsage(own.secret);
    expect(rows.map((row) => row.agentId).sort()).toEqual(['boss', 'talker']);
  });

  it('an endless model call stops at the budget: the day ends within the budget and one chunk, the finish says budget_exhausted', async () => {
    const limit = 20_000;
    const own = await account('endless', { endless: { provider: stack.provider('chat') } });
    await own.limit(limit);
    stack.model.resetCalls();
    const response = await stack.chat(own.secret, 'endless', { conversationKey: 'k', message: 'endless' }, 'text/event-stream');
    expect(response.status).toBe(200);
    const chunks = await collectChunks(response);
    expect(finishOf(chunks)).toMatchObject({ status: 'failed', finishReason: 'budget_exhausted', error: { code: 'rate_limited' } });
    // Before the in-call watch the call ran to HARNESS_MODEL_MAX_RESPONSE_BYTES: ~8.3 million tokens booked.
    const [row] = await todaysUsage(own.secret);
    expect(row!.totalTokens).toBeGreaterThanOrEqual(limit);
    expect(row!.totalTokens).toBeLessThan(limit + 2_000);
    expect(row!.estimatedTokens).toBe(row!.totalTokens);
    // What streamed is kept: the text the client saw is the stored answer, and the service hung up on the model.
    const streamed = chunks.flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.delta] : [])).join('');
    const stored = (await requestJson<{ messages: { role: string; content: unknown }[] }>(`${stack.agentUrl}/agents/endless/conversations/k`, { secret: own.secret })).body.messages;
    expect(stored.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(JSON.stringify(stored[1]!.content)).toContain(streamed.slice(-100));
    const [call] = stack.model.calls();
    await waitUntil('the service to hang up on the endless model', () => (call?.endless?.clientGone ? true : undefined));
  });

  it('counts a cancelled streaming call: the tokens it streamed reach the day and /status, marked estimated', async () => {
    const own = await account('canceller', { talker: {} });
    stack.model.setOptions({ chunkDelayMs: 20 });
    const response = await stack.chat(own.secret, 'talker', { conversationKey: 'k', message: 'long: 400' }, 'text/event-stream');
    const reader = uiChunkStream(response).getReader();
    const chunks: UIMessageChunk[] = [];
    while (chunks.filter((chunk) => chunk.type === 'text-delta').length < 5) chunks.push((await reader.read()).value!);
    const eventId = response.headers.get('x-harness-event-id')!;
    expect((await requestJson(`${stack.agentUrl}/status/${eventId}/cancel`, { method: 'POST', secret: own.secret })).status).toBe(202);
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    stack.model.setOptions({ chunkDelayMs: 0 });
    expect(finishOf(chunks).status).toBe('cancelled');

    const [row] = await todaysUsage(own.secret);
    expect(row).toMatchObject({ agentId: 'talker', turns: 1 });
    expect(row!.totalTokens).toBeGreaterThan(0);
    expect(row!.outputTokens).toBeGreaterThan(0);
    expect(row!.estimatedTokens).toBe(row!.totalTokens);
    const status = await statusOf(own.secret, eventId);
    expect(status).toMatchObject({ status: 'cancelled', usage: { totalTokens: row!.totalTokens, estimatedTokens: row!.totalTokens } });
  });
});
