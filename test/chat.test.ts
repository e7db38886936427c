import { readUIMessageStream, type UIMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { collectChunks, uiChunkStream } from './support/sse-chunks.js';

interface ChatAnswer {
  conversationKey: string;
  status: string;
  text: string;
  messages: { role: string; content: unknown }[];
  pendingApprovals: { approvalId: string; toolName: string; input: unknown }[];
}

const approvalMessage = (answers: { approvalId: string; approved: boolean; reason?: string }[]) => ({
  role: 'tool',
  content: answers.map((answer) => ({ type: 'tool-approval-response', ...answer })),
});

describe('direct chat API', () => {
  let stack: ChatStack;
  let secret: string;
  let conversation = 0;
  const nextKey = () => `conversation-${(conversation += 1)}`;

  beforeAll(async () => {
    stack = await startChatStack();
    secret = (await stack.createAccount('chatter')).secret;
    await stack.putAgent(secret, 'helper', {
      system: 'Be brief.',
      provider: stack.provider(),
      tools: { alphaSearch: { apiKey: 'tvly-fixture-search-key-0123456789', needsApproval: true, maxResults: 2 }, test_async: { durationMs: 5 } },
    });
    await stack.putAgent(secret, 'chatty', { provider: stack.provider('chat'), tools: { test_async: { durationMs: 5 } } });
  });
  afterAll(async () => {
    await stack.close();
  });

  const chatJson = async (agentId: string, body: unknown): Promise<{ status: number; body: ChatAnswer & { error?: { code: string; message: string } } }> => {
    const response = await stack.chat(secret, agentId, body);
    return { status: response.status, body: (await response.json()) as ChatAnswer & { error?: { code: string; message: string } } };
  };

  it('answers a plain message as JSON through the real OpenAI client (Responses and Chat Completions)', async () => {
    const before = stack.model.callCount();
    const answer = await chatJson('helper', { conversationKey: nextKey(), message: 'hello there' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'completed', text: 'Echo: hello there', pendingApprovals: [] });
    expect(answer.body.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    const chat = await chatJson('chatty', { conversationKey: nextKey(), message: 'hi' });
    expect(chat.body.text).toBe('Echo: hi');
    const endpoints = stack.model.calls().slice(before).map((call) => call.endpoint);
    expect(endpoints).toEqual(['/v1/responses', '/v1/chat/completions']);
    expect(stack.model.calls().at(-2)?.body).toMatchObject({ store: false });
  });

  it('streams the AI SDK UI message stream over SSE, readable by readUIMessageStream', async () => {
    const response = await stack.chat(secret, 'helper', { conversationKey: nextKey(), message: 'call test_async {"label":"ping"}' }, 'text/event-stream');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    let last: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream: uiChunkStream(response) })) last = message;
    const toolPart = last?.parts.find((part) => part.type === 'tool-test_async') as { state: string; output: { label: string } } | undefined;
    expect(toolPart?.state).toBe('output-available');
    expect(toolPart?.output.label).toBe('ping');
    const text = last?.parts.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text).join('');
    expect(text).toContain('test_async: {"label":"ping"');
    expect(last?.metadata).toMatchObject({ status: 'completed' });
  });

  it('keeps a conversation: the second turn sends the first one back to the model', async () => {
    const key = nextKey();
    await chatJson('helper', { conversationKey: key, message: 'first' });
    await chatJson('helper', { conversationKey: key, message: 'second' });
    const lastCall = stack.model.calls().at(-1)?.body as { input: { role?: string; content?: unknown }[] };
    expect(JSON.stringify(lastCall.input)).toContain('first');
    const stored = await fetch(`${stack.agentUrl}/agents/helper/conversations/${encodeURIComponent(key)}`, { headers: { authorization: `Bearer ${secret}` } });
    expect(((await stored.json()) as ChatAnswer).messages).toHaveLength(4);
  });

  it('asks for approval, then runs an approved tool exactly once', async () => {
    const key = nextKey();
    const stream = await stack.chat(secret, 'helper', { conversationKey: key, message: 'search: cats' }, 'text/event-stream');
    const chunks = await collectChunks(stream);
    const request = chunks.find((chunk) => chunk.type === 'tool-approval-request') as { approvalId: string } | undefined;
    expect(request).toBeDefined();
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'awaiting_approval' } });
    const searchesBefore = stack.search.requests().length;
    const approved = await chatJson('helper', { conversationKey: key, message: approvalMessage([{ approvalId: request!.approvalId, approved: true }]) });
    expect(approved.body.status).toBe('completed');
    expect(approved.body.text).toContain('alphaSearch: {"query":"cats"');
    expect(stack.search.requests().length).toBe(searchesBefore + 1);
    expect(stack.search.requests().at(-1)?.body).toMatchObject({ query: 'cats', max_results: 2 });
    const again = await chatJson('helper', { conversationKey: key, message: approvalMessage([{ approvalId: request!.approvalId, approved: true }]) });
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('conflict');
    expect(stack.search.requests().length).toBe(searchesBefore + 1);
  });

  it('never runs a denied tool, and tells the model the reason', async () => {
    const key = nextKey();
    const first = await chatJson('helper', { conversationKey: key, message: 'search: secrets' });
    const searchesBefore = stack.search.requests().length;
    const denied = await chatJson('helper', { conversationKey: key, message: approvalMessage([{ approvalId: first.body.pendingApprovals[0]!.approvalId, approved: false, reason: 'not today' }]) });
    expect(denied.body.status).toBe('completed');
    expect(denied.body.text).toContain('alphaSearch: not today');
    expect(stack.search.requests().length).toBe(searchesBefore);
  });

  it('handles several approvals in one step, answered in parts', async () => {
    const key = nextKey();
    const first = await chatJson('helper', { conversationKey: key, message: 'search: one\nsearch: two' });
    expect(first.body.pendingApprovals.map((approval) => approval.input)).toEqual([{ query: 'one' }, { query: 'two' }]);
    const [one, two] = first.body.pendingApprovals;
    const partial = await chatJson('helper', { conversationKey: key, message: approvalMessage([{ approvalId: one!.approvalId, approved: true }]) });
    expect(partial.body.status).toBe('awaiting_approval');
    expect(partial.body.pendingApprovals.map((approval) => approval.approvalId)).toEqual([two!.approvalId]);
    const rest = await chatJson('helper', { conversationKey: key, message: approvalMessage([{ approvalId: two!.approvalId, approved: false, reason: 'only one' }]) });
    expect(rest.body.status).toBe('completed');
    expect(rest.body.text).toContain('alphaSearch: {"query":"one"');
    expect(rest.body.text).toContain('alphaSearch: only one');
  });

  it('answers 400 for an approvalId never issued in the conversation', async () => {
    const key = nextKey();
    await chatJson('helper', { conversationKey: key, message: 'search: x' });
    const unknown = await chatJson('helper', { conversationKey: key, message: approvalMessage([{ approvalId: 'aitxt-never', approved: true }]) });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.message).toContain('was never issued');
  });

  it('denies pending approvals when a new user message arrives instead of an answer', async () => {
    const key = nextKey();
    await chatJson('helper', { conversationKey: key, message: 'search: pending' });
    const next = await chatJson('helper', { conversationKey: key, message: 'never mind' });
    expect(next.body.status).toBe('completed');
    expect(next.body.messages[0]).toMatchObject({ role: 'tool' });
    expect(JSON.stringify(next.body.messages[0])).toContain('execution-denied');
    expect(next.body.pendingApprovals).toEqual([]);
  });

  it('accepts the DefaultChatTransport body, for user text and for approval answers', async () => {
    const key = nextKey();
    const user = { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'search: transport' }] };
    const first = await chatJson('helper', { id: key, messages: [user], trigger: 'submit-message' });
    expect(first.body.status).toBe('awaiting_approval');
    const approvalId = first.body.pendingApprovals[0]!.approvalId;
    const assistant = { id: 'm2', role: 'assistant', parts: [{ type: 'tool-alphaSearch', toolCallId: 'x', state: 'approval-responded', input: { query: 'transport' }, approval: { id: approvalId, approved: true } }] };
    const second = await chatJson('helper', { id: key, messages: [user, assistant] });
    expect(second.body.status).toBe('completed');
    expect(second.body.text).toContain('alphaSearch: {"query":"transport"');
  });

  it('streams to a chat transport body that names no Accept, as useChat sends it, and goes on in the answered assistant message', async () => {
    const key = nextKey();
    const user = { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'search: stock client' }] };
    const send = (messages: unknown[]) =>
      fetch(`${stack.agentUrl}/agents/helper/chat`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` }, body: JSON.stringify({ id: key, messages }) });
    const first = await send([user]);
    expect(first.headers.get('content-type')).toContain('text/event-stream');
    const chunks = await collectChunks(first);
    const request = chunks.find((chunk) => chunk.type === 'tool-approval-request') as { approvalId: string } | undefined;
    expect(request).toBeDefined();
    const assistant = { id: 'assistant-7', role: 'assistant', parts: [{ type: 'tool-alphaSearch', toolCallId: 'x', state: 'approval-responded', input: { query: 'stock client' }, approval: { id: request!.approvalId, approved: true } }] };
    const rest = await collectChunks(await send([user, assistant]));
    expect(rest.find((chunk) => chunk.type === 'start')).toMatchObject({ messageId: 'assistant-7' });
    expect(rest.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'completed' } });
    // Asking for JSON still gets JSON.
    expect((await stack.chat(secret, 'helper', { id: nextKey(), messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hello' }] }] })).headers.get('content-type')).toContain('application/json');
  });

  it('turns a failing model into 502 before streaming, and into an error chunk once streaming has begun', async () => {
    const json = await chatJson('helper', { conversationKey: nextKey(), message: 'fail: 500' });
    expect(json.status).toBe(502);
    expect(json.body.error).toMatchObject({ code: 'upstream_error', message: expect.stringContaining('HTTP 500') });
    const sse = await stack.chat(secret, 'helper', { conversationKey: nextKey(), message: 'fail: 503' }, 'text/event-stream');
    expect(sse.status).toBe(502);
    const midway = await stack.chat(secret, 'helper', { conversationKey: nextKey(), message: 'call test_async {}\nthen fail: 500' }, 'text/event-stream');
    expect(midway.status).toBe(200);
    const chunks = await collectChunks(midway);
    expect(chunks.some((chunk) => chunk.type === 'tool-output-available')).toBe(true);
    expect(chunks.find((chunk) => chunk.type === 'error')).toMatchObject({ errorText: expect.stringContaining('HTTP 500') });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'failed' } });
  });

  it('gives the model a tool error with the status when the search service fails, and the turn goes on', async () => {
    stack.search.failNext(503);
    const key = nextKey();
    const first = await chatJson('helper', { conversationKey: key, message: 'search: outage' });
    const answer = await chatJson('helper', { conversationKey: key, message: approvalMessage([{ approvalId: first.body.pendingApprovals[0]!.approvalId, approved: true }]) });
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('completed');
    expect(answer.body.text).toContain('503');
    const failure = stack.logs.find((log) => log.fields.phase === 'failure' && log.fields.tool === 'alphaSearch');
    expect(failure?.fields).toMatchObject({ status: 503, durationMs: expect.any(Number) });
  });

  it('refuses a turn on an agent without a provider, naming the field; a missing tool key fails only that tool', async () => {
    await stack.putAgent(secret, 'bare', {});
    const bare = await chatJson('bare', { conversationKey: nextKey(), message: 'hi' });
    expect(bare.status).toBe(400);
    expect(bare.body.error?.message).toContain('config.provider is missing');
    await stack.putAgent(secret, 'keyless', { provider: stack.provider(), tools: { alphaExtract: {} } });
    const keyless = await chatJson('keyless', { conversationKey: 'k', message: 'hi' });
    expect(keyless.status).toBe(200);
    expect(keyless.body.status).toBe('completed');
    const called = await chatJson('keyless', { conversationKey: 'k', message: 'call alphaExtract {"urls":["https://example.com/a"]}' });
    expect(called.status).toBe(200);
    expect(JSON.stringify(called.body.messages)).toContain('config.tools.alphaExtract.apiKey is missing');
  });

  it('validates the chat body and hides other accounts', async () => {
    expect((await chatJson('helper', { conversationKey: '', message: 'x' })).body.error?.message).toContain('conversationKey must be a string of 1-256');
    expect((await chatJson('helper', { conversationKey: 'k' })).body.error?.message).toBe('message is required');
    expect((await chatJson('helper', { conversationKey: 'k', message: { role: 'system', content: 'x' } })).status).toBe(400);
    expect((await chatJson('nobody', { conversationKey: 'k', message: 'x' })).status).toBe(404);
    const other = await stack.createAccount('outsider');
    const response = await stack.chat(other.secret, 'helper', { conversationKey: 'k', message: 'x' });
    expect(response.status).toBe(404);
    const unauthorized = await fetch(`${stack.agentUrl}/agents/helper/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unauthorized.status).toBe(401);
  });

  it('uses the provider-executed web search for betaSearch', async () => {
    await stack.putAgent(secret, 'webby', { provider: stack.provider(), tools: { betaSearch: { async: true } } });
    const response = await stack.chat(secret, 'webby', { conversationKey: nextKey(), message: 'web: harness' }, 'text/event-stream');
    const chunks = await collectChunks(response);
    expect(chunks.find((chunk) => chunk.type === 'tool-input-available')).toMatchObject({ providerExecuted: true });
    expect(chunks.some((chunk) => chunk.type === 'source-url')).toBe(true);
    expect(stack.logs.some((log) => log.level === 'warn' && String(log.message).includes('async: true is ignored'))).toBe(true);
  });
});

describe('approvals across a restart', () => {
  it('keeps a pending approval answerable after the service restarts', async () => {
    const stack = await startChatStack();
    try {
      const { secret } = await stack.createAccount('restarter');
      await stack.putAgent(secret, 'helper', { provider: stack.provider(), tools: { alphaSearch: { apiKey: 'tvly-fixture-search-key-0123456789', needsApproval: true } } });
      const first = await stack.chat(secret, 'helper', { conversationKey: 'k', message: 'search: later' });
      const { pendingApprovals } = (await first.json()) as ChatAnswer;
      await stack.restart();
      const answer = await stack.chat(secret, 'helper', { conversationKey: 'k', message: approvalMessage([{ approvalId: pendingApprovals[0]!.approvalId, approved: true }]) });
      const body = (await answer.json()) as ChatAnswer;
      expect(body.status).toBe('completed');
      expect(body.text).toContain('alphaSearch: {"query":"later"');
      expect(stack.search.requests()).toHaveLength(1);
    } finally {
      await stack.close();
    }
  });
});

describe('ENABLE_DIRECT_API=false', () => {
  it('removes the chat route', async () => {
    const stack = await startChatStack({ enableDirectApi: false });
    try {
      const { secret } = await stack.createAccount('offline');
      const response = await stack.chat(secret, 'helper', { conversationKey: 'k', message: 'x' });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
    } finally {
      await stack.close();
    }
  });
});
