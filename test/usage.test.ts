import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureUsage } from '../fixtures/model-server/fixture-usage.js';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { startRecordingWorker } from './support/recording-worker.js';
import { collectChunks } from './support/sse-chunks.js';
import { testAdminSecret } from './support/test-services.js';

interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

interface UsageRow extends Usage {
  agentId: string;
  day: string;
  turns: number;
}

interface Answer {
  status: string;
  text: string;
  usage?: Usage;
  eventId?: string;
  statusUrl?: string;
  pendingApprovals: { approvalId: string }[];
  error?: { code: string; message: string };
}

interface StoredMessage {
  role: string;
  usage?: Usage;
}

const sum = (usages: (FixtureUsage | undefined)[]): Usage =>
  usages.reduce<Usage>(
    (total, usage) => ({
      inputTokens: total.inputTokens + (usage?.inputTokens ?? 0),
      outputTokens: total.outputTokens + (usage?.outputTokens ?? 0),
      totalTokens: total.totalTokens + (usage?.totalTokens ?? 0),
    }),
    { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  );

/** Every agent here is on the fixture model through the openai provider: each usage names them. */
const answered = <T extends object>(usage: T) => ({ ...usage, provider: 'openai', model: 'fixture-model' });

const today = () => new Date().toISOString().slice(0, 10);

describe('token usage', () => {
  let stack: ChatStack;
  let secret: string;
  let keys = 0;
  const nextKey = () => `usage-${(keys += 1)}`;

  beforeAll(async () => {
    stack = await startChatStack();
    secret = (await stack.createAccount('counter')).secret;
    const search = { alphaSearch: { apiKey: 'tvly-fixture-search-key-0123456789', needsApproval: true, maxResults: 1 } };
    await stack.putAgent(secret, 'responder', { provider: stack.provider('responses'), tools: { test_async: { durationMs: 1 }, ...search } });
    await stack.putAgent(secret, 'chatter', { provider: stack.provider('chat'), tools: { test_async: { durationMs: 1 } } });
  });
  afterAll(async () => {
    await stack.close();
  });

  const get = async <T>(base: string, path: string, bearer = secret): Promise<{ status: number; headers: Headers; body: T }> => {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${bearer}` } });
    return { status: response.status, headers: response.headers, body: (await response.json()) as T };
  };
  const chatJson = async (agentId: string, body: unknown, bearer = secret) => {
    const response = await stack.chat(bearer, agentId, body);
    return { status: response.status, headers: response.headers, body: (await response.json()) as Answer };
  };
  /** Runs `work` and returns the usage the fixture model reported for the calls it made. */
  const reported = async <T>(work: () => Promise<T>): Promise<{ result: T; calls: FixtureUsage[] }> => {
    const before = stack.model.callCount();
    const result = await work();
    return { result, calls: stack.model.calls().slice(before).map((call) => call.usage!) };
  };
  const storedMessages = async (agentId: string, key: string, bearer = secret) =>
    (await get<{ messages: StoredMessage[] }>(stack.agentUrl, `/agents/${agentId}/conversations/${encodeURIComponent(key)}`, bearer)).body.messages;
  const usageRows = async (query = `?from=${today()}&to=${today()}`, bearer = secret) => get<{ usage: UsageRow[]; error?: { code: string; message: string } }>(stack.accountUrl, `/accounts/me/usage${query}`, bearer);

  it('records what the model reported, on the answer and the stored assistant message (Responses and Chat Completions)', async () => {
    for (const agentId of ['responder', 'chatter']) {
      const key = nextKey();
      const { result, calls } = await reported(() => chatJson(agentId, { conversationKey: key, message: 'hello there' }));
      expect(calls).toHaveLength(1);
      expect(calls[0]!.totalTokens).toBeGreaterThan(0);
      expect(result.body.usage).toEqual(answered(sum(calls)));
      const messages = await storedMessages(agentId, key);
      expect(messages.map((message) => message.role)).toEqual(['user', 'assistant']);
      expect(messages[0]!.usage).toBeUndefined();
      expect(messages[1]!.usage).toEqual(answered(calls[0]!));
    }
  });

  it('a turn with a tool call sums both model calls, each on the assistant message it produced (SSE too)', async () => {
    const key = nextKey();
    const { result: chunks, calls } = await reported(async () => collectChunks(await stack.chat(secret, 'responder', { conversationKey: key, message: 'call test_async {"label":"x"}' }, 'text/event-stream')));
    expect(calls).toHaveLength(2);
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'completed', usage: sum(calls) } });
    const assistants = (await storedMessages('responder', key)).filter((message) => message.role === 'assistant');
    expect(assistants.map((message) => message.usage)).toEqual(calls.map(answered));
  });

  it('an /async turn shows its usage on /status', async () => {
    const { result: status, calls } = await reported(async () => {
      const response = await fetch(`${stack.agentUrl}/agents/chatter/async`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: JSON.stringify({ conversationKey: nextKey(), message: 'call test_async {"n":1}' }),
      });
      const { eventId } = (await response.json()) as { eventId: string };
      for (;;) {
        await stack.core.asyncWorker.idle();
        const row = await get<{ status: string; usage: Usage }>(stack.agentUrl, `/status/${eventId}`);
        if (row.body.status === 'completed' || row.body.status === 'failed') return row.body;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    });
    expect(status.status).toBe('completed');
    expect(calls).toHaveLength(2);
    expect(status.usage).toEqual(answered(sum(calls)));
  });

  it('keeps the cache and reasoning tokens the model reported, zeros included, and lists each call on /status (usageByCall)', async () => {
    const own = await stack.createAccount('detailer');
    for (const api of ['responses', 'chat'] as const) {
      const agentId = `detailed-${api}`;
      await stack.putAgent(own.secret, agentId, { provider: stack.provider(api), tools: { test_async: { durationMs: 1 } } });
      const key = nextKey();
      const { result: status, calls } = await reported(async () => {
        const response = await fetch(`${stack.agentUrl}/agents/${agentId}/async`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${own.secret}` },
          body: JSON.stringify({ conversationKey: key, message: 'usage: cached=7 reasoning=3\ncall test_async {"n":2}\nthen usage: cached=0 reasoning=0' }),
        });
        const { eventId } = (await response.json()) as { eventId: string };
        for (;;) {
          await stack.core.asyncWorker.idle();
          const row = await get<{ status: string; usage: Usage; usageByCall: Usage[] }>(stack.agentUrl, `/status/${eventId}`, own.secret);
          if (row.body.status === 'completed' || row.body.status === 'failed') return row.body;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      });
      expect(status.status).toBe('completed');
      expect(calls).toHaveLength(2);
      expect(calls[0]).toMatchObject({ cachedInputTokens: 7, reasoningTokens: 3 });
      expect(calls[1]).toMatchObject({ cachedInputTokens: 0, reasoningTokens: 0 });
      // Each call as the model reported it, then their sum, which keeps the contract's three fields.
      expect(status.usageByCall).toEqual(calls.map(answered));
      expect(status.usage).toEqual(answered({ ...sum(calls), cachedInputTokens: 7, reasoningTokens: 3 }));
      const assistants = (await get<{ messages: StoredMessage[] }>(stack.agentUrl, `/agents/${agentId}/conversations/${key}`, own.secret)).body.messages.filter((message) => message.role === 'assistant');
      expect(assistants.map((message) => message.usage)).toEqual(calls.map(answered));
    }
    const rows = (await usageRows(undefined, own.secret)).body.usage;
    expect(rows.map((row) => [row.agentId, (row as { cachedInputTokens?: number }).cachedInputTokens, (row as { reasoningTokens?: number }).reasoningTokens])).toEqual([
      ['detailed-chat', 7, 3],
      ['detailed-responses', 7, 3],
    ]);
  });

  it('a model that reports no cache or reasoning details gets none: usage is exactly {inputTokens, outputTokens, totalTokens} and who answered', async () => {
    for (const agentId of ['responder', 'chatter']) {
      const { result, calls } = await reported(() => chatJson(agentId, { conversationKey: nextKey(), message: 'plain' }));
      expect(result.body.usage).toEqual(answered(sum(calls)));
      expect(Object.keys(result.body.usage!).sort()).toEqual(['inputTokens', 'model', 'outputTokens', 'provider', 'totalTokens']);
    }
  });

  it('a turn continued after an approval counts once, with the usage of both runs', async () => {
    const own = await stack.createAccount('approver');
    await stack.putAgent(own.secret, 'responder', { provider: stack.provider(), tools: { alphaSearch: { apiKey: 'tvly-fixture-search-key-0123456789', needsApproval: true, maxResults: 1 } } });
    const key = nextKey();
    const { calls } = await reported(async () => {
      const first = await chatJson('responder', { conversationKey: key, message: 'search: cats' }, own.secret);
      expect(first.body.status).toBe('awaiting_approval');
      const answers = { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: first.body.pendingApprovals[0]!.approvalId, approved: true }] };
      const second = await chatJson('responder', { conversationKey: key, message: answers }, own.secret);
      expect(second.body.status).toBe('completed');
    });
    expect(calls).toHaveLength(2);
    const rows = (await usageRows(undefined, own.secret)).body.usage;
    expect(rows).toEqual([{ agentId: 'responder', day: today(), ...sum(calls), turns: 1 }]);
    // The resumed run starts with the approved tool's result, made before its model call: each
    // message is stored once, and the call's usage is on the assistant message it produced.
    const messages = await storedMessages('responder', key, own.secret);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(messages.filter((message) => message.role === 'assistant').map((message) => message.usage)).toEqual(calls.map(answered));
  });

  it('a turn that waits for an external tool sums both runs on /status', async () => {
    const worker = await startRecordingWorker();
    try {
      const own = await stack.createAccount('dispatcher');
      await stack.putAgent(own.secret, 'dispatcher', {
        provider: stack.provider(),
        tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: own.secret, workerUrl: worker.dispatchUrl } },
      });
      const { result: final, calls } = await reported(async () => {
        const answer = await chatJson('dispatcher', { conversationKey: nextKey(), message: 'call test_external_async {"task":"t"}' }, own.secret);
        expect(answer.body.status).toBe('waiting_async_tools');
        const waiting = await get<{ usage: Usage }>(stack.agentUrl, `/status/${answer.body.eventId!}`, own.secret);
        expect(waiting.body.usage).toEqual(answer.body.usage);
        expect((await worker.complete(worker.dispatches[0]!, { status: 'completed', response: { done: true } })).status).toBe(202);
        for (;;) {
          await stack.core.asyncWorker.idle();
          const row = await get<{ status: string; usage: Usage }>(stack.agentUrl, `/status/${answer.body.eventId!}`, own.secret);
          if (row.body.status === 'completed' || row.body.status === 'failed') return row.body;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      });
      expect(final.status).toBe('completed');
      // The first run calls the tool and answers its "processing" result; the continuation calls once more.
      expect(calls).toHaveLength(3);
      expect(final.usage).toEqual(answered(sum(calls)));
      expect((await usageRows(undefined, own.secret)).body.usage).toEqual([{ agentId: 'dispatcher', day: today(), ...sum(calls), turns: 1 }]);
    } finally {
      await worker.close();
    }
  });

  it('GET /accounts/me/usage sums per agent and day, sorted by day then agent', async () => {
    const own = await stack.createAccount('reporter');
    for (const agentId of ['zeta', 'alpha']) await stack.putAgent(own.secret, agentId, { provider: stack.provider(agentId === 'zeta' ? 'chat' : 'responses') });
    const zeta = await reported(async () => {
      await chatJson('zeta', { conversationKey: 'a', message: 'one' }, own.secret);
      await chatJson('zeta', { conversationKey: 'b', message: 'two' }, own.secret);
    });
    const alpha = await reported(() => chatJson('alpha', { conversationKey: 'a', message: 'three' }, own.secret));
    const rows = await usageRows('', own.secret);
    expect(rows.status).toBe(200);
    expect(rows.body.usage).toEqual([
      { agentId: 'alpha', day: today(), ...sum(alpha.calls), turns: 1 },
      { agentId: 'zeta', day: today(), ...sum(zeta.calls), turns: 2 },
    ]);
    expect((await usageRows('?from=2000-01-01&to=2000-01-31', own.secret)).body.usage).toEqual([]);
  });

  it('answers 400 naming the field for a bad date or from after to, and 401 without a bearer', async () => {
    const bad = await usageRows('?from=2024-02-30');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('from') });
    const backwards = await usageRows('?from=2024-03-02&to=2024-03-01');
    expect(backwards.status).toBe(400);
    expect(backwards.body.error?.message).toContain('must not be after');
    const tooLong = await usageRows('?from=2020-01-01&to=2024-01-01');
    expect(tooLong.status).toBe(400);
    expect((await usageRows('?to=yesterday')).body.error?.message).toContain('to must be an ISO date');
    expect((await fetch(`${stack.accountUrl}/accounts/me/usage`)).status).toBe(401);
  });

  it('refuses new turns with 429 once the daily token budget is spent, until the operator lifts it', async () => {
    const own = await stack.createAccount('spender');
    await stack.putAgent(own.secret, 'spender', { provider: stack.provider() });
    const admin = (body: unknown) =>
      fetch(`${stack.accountUrl}/admin/accounts/${own.accountId}`, { method: 'PATCH', headers: { 'content-type': 'application/json', authorization: `Bearer ${testAdminSecret}` }, body: JSON.stringify(body) });
    // Over the first turn's estimate while it streams (its message and reply; a running call is stopped once
    // its estimate reaches the limit), under what the fixture reports for it (the whole request body).
    const limited = await admin({ tokensPerDay: 20 });
    expect(limited.status).toBe(200);
    expect(await limited.json()).toMatchObject({ accountId: own.accountId, tokensPerDay: 20, disabled: false });
    // Under the limit the turn runs.
    expect((await chatJson('spender', { conversationKey: 'k', message: 'first' }, own.secret)).status).toBe(200);
    const refused = await chatJson('spender', { conversationKey: 'k', message: 'second' }, own.secret);
    expect(refused.status).toBe(429);
    expect(refused.body.error?.code).toBe('rate_limited');
    expect(refused.body.error?.message).toMatch(/daily token budget is spent: \d+ of 20 tokens used today \(UTC\).*resets at \d{4}-\d{2}-\d{2}T00:00:00\.000Z/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    const asyncRefused = await fetch(`${stack.agentUrl}/agents/spender/async`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${own.secret}` },
      body: JSON.stringify({ conversationKey: 'k', message: 'third' }),
    });
    expect(asyncRefused.status).toBe(429);
    // The refused turns used nothing and counted nothing.
    expect((await usageRows(undefined, own.secret)).body.usage).toMatchObject([{ agentId: 'spender', turns: 1 }]);

    expect(await (await admin({ tokensPerDay: null })).json()).not.toHaveProperty('tokensPerDay');
    expect((await chatJson('spender', { conversationKey: 'k', message: 'fourth' }, own.secret)).status).toBe(200);
    expect((await admin({})).status).toBe(400);
    expect((await admin({ tokensPerDay: -1 })).status).toBe(400);
  });
});
