import { execFileSync } from 'node:child_process';
import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeBubblewrap } from '../server/core/sandbox/bubblewrap-probe.js';
import { subagentConversationKey } from '../server/core/subagents/subagent-conversation-key.js';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { requestJson } from './support/json-request.js';
import { startRecordingWorker } from './support/recording-worker.js';
import { uiChunkStream } from './support/sse-chunks.js';
import { waitUntil } from './support/wait-until.js';

interface StatusRow {
  eventId: string;
  status: string;
  error?: string;
  result?: { text: string };
  pendingApprovals?: { approvalId: string }[];
  pendingAsyncTools?: { resultId: string; status: string }[];
}

interface CancelAnswer {
  cancelled: boolean;
  state: string;
  eventId?: string;
  turnId?: string;
  closedApprovals: string[];
  closedAsyncTools: string[];
}

interface StoredMessage {
  role: string;
  content: unknown;
  cancelled?: boolean;
}

const textOf = (message: StoredMessage | undefined): string =>
  typeof message?.content === 'string' ? message.content : ((message?.content ?? []) as { type: string; text?: string }[]).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');

/** Processes of this machine whose command line contains `marker`. */
const processesWith = (marker: string): string[] =>
  execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker) && !line.includes('ps -eo'));

describe('cancel a run', () => {
  let stack: ChatStack;
  let worker: Awaited<ReturnType<typeof startRecordingWorker>>;
  let secret: string;
  let otherSecret: string;
  let keys = 0;
  const nextKey = () => `cancel-${(keys += 1)}`;

  beforeAll(async () => {
    stack = await startChatStack({ bubblewrap: await probeBubblewrap() });
    worker = await startRecordingWorker();
    secret = (await stack.createAccount('canceller')).secret;
    otherSecret = (await stack.createAccount('stranger')).secret;
    await stack.putAgent(secret, 'talker', { provider: stack.provider('chat'), sandbox: {} });
    await stack.putAgent(secret, 'asker', { provider: stack.provider(), tools: { alphaSearch: { apiKey: 'tvly-fixture-search-key-0123456789', needsApproval: true } } });
    await stack.putAgent(secret, 'dispatcher', {
      provider: stack.provider(),
      tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: secret, workerUrl: worker.dispatchUrl } },
    });
    await stack.putAgent(secret, 'boss', { provider: stack.provider('chat'), subagent: { agents: { talker: { description: 'Talks at length' } } } });
    await stack.putAgent(otherSecret, 'talker', { provider: stack.provider('chat') });
  });
  afterAll(async () => {
    stack.model.setOptions({ chunkDelayMs: 0 });
    await worker.close();
    await stack.close();
  });

  const post = <T>(path: string, body?: unknown, bearer = secret) => requestJson<T>(`${stack.agentUrl}${path}`, { method: 'POST', secret: bearer, body });
  const get = <T>(path: string, bearer = secret) => requestJson<T>(`${stack.agentUrl}${path}`, { secret: bearer });
  const storedMessages = async (agentId: string, key: string) => (await get<{ messages: StoredMessage[] }>(`/agents/${agentId}/conversations/${key}`)).body.messages;
  const statusOf = async (eventId: string) => (await get<StatusRow>(`/status/${eventId}`)).body;

  /** Reads an SSE turn until `ready` says so; returns the reader and the chunks so far. */
  const streamUntil = async (agentId: string, key: string, message: string, ready: (chunks: UIMessageChunk[]) => boolean) => {
    const response = await stack.chat(secret, agentId, { conversationKey: key, message }, 'text/event-stream');
    expect(response.status).toBe(200);
    const reader = uiChunkStream(response).getReader();
    const chunks: UIMessageChunk[] = [];
    while (!ready(chunks)) {
      const next = await reader.read();
      if (next.done) throw new Error('the stream ended before it was ready');
      chunks.push(next.value);
    }
    const rest = async () => {
      for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
      return chunks;
    };
    return { chunks, rest };
  };
  const deltas = (chunks: UIMessageChunk[]) => chunks.filter((chunk) => chunk.type === 'text-delta').map((chunk) => (chunk as { delta: string }).delta);

  it('cancels a streaming turn: the stream ends cancelled, the streamed text is stored and marked, the status row says cancelled, and the next turn works', async () => {
    stack.model.setOptions({ chunkDelayMs: 20 });
    const key = nextKey();
    const turn = await streamUntil('talker', key, 'long: 400', (chunks) => deltas(chunks).length >= 5);
    const cancel = await post<CancelAnswer>(`/agents/talker/conversations/${key}/cancel`);
    expect(cancel.status).toBe(202);
    expect(cancel.body).toMatchObject({ cancelled: true, state: 'running', turnId: expect.stringMatching(/^turn_/), eventId: expect.stringMatching(/^evt_/) });
    const chunks = await turn.rest();
    stack.model.setOptions({ chunkDelayMs: 0 });
    const finish = chunks.at(-1) as { type: string; messageMetadata: { status: string; eventId: string } };
    expect(finish).toMatchObject({ type: 'finish', messageMetadata: { status: 'cancelled', eventId: cancel.body.eventId } });
    expect(chunks.some((chunk) => chunk.type === 'abort' || chunk.type === 'error')).toBe(false);
    const streamed = deltas(chunks).join('');
    expect(streamed.split(' ').length).toBeLessThan(400);

    const messages = await storedMessages('talker', key);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(messages[1]).toMatchObject({ cancelled: true });
    expect(textOf(messages[1])).toBe(streamed);

    const row = await statusOf(cancel.body.eventId!);
    expect(row).toMatchObject({ status: 'cancelled', result: { text: streamed } });

    const again = await post<CancelAnswer>(`/agents/talker/conversations/${key}/cancel`);
    expect(again.status).toBe(409);
    const next = await stack.chat(secret, 'talker', { conversationKey: key, message: 'still there?' });
    expect(await next.json()).toMatchObject({ status: 'completed', text: 'Echo: still there?' });
  });

  it("cancels a plain SSE chat turn by the event id its start chunk and header name, before the turn ends", async () => {
    stack.model.setOptions({ chunkDelayMs: 20 });
    const key = nextKey();
    const response = await stack.chat(secret, 'talker', { conversationKey: key, message: 'long: 400' }, 'text/event-stream');
    expect(response.status).toBe(200);
    const reader = uiChunkStream(response).getReader();
    const start = (await reader.read()).value as { type: string; messageMetadata?: { eventId?: string; turnId?: string } };
    expect(start).toMatchObject({ type: 'start', messageMetadata: { eventId: expect.stringMatching(/^evt_/), turnId: expect.stringMatching(/^turn_/) } });
    const eventId = start.messageMetadata!.eventId!;
    expect(response.headers.get('x-harness-event-id')).toBe(eventId);
    // A plain chat turn has no status row while it runs: /status is for /async requests and runs that wait.
    expect((await get(`/status/${eventId}`)).status).toBe(404);
    const cancel = await post<CancelAnswer>(`/status/${eventId}/cancel`);
    expect(cancel.status).toBe(202);
    expect(cancel.body).toMatchObject({ cancelled: true, state: 'running', eventId, turnId: start.messageMetadata!.turnId });
    const chunks: UIMessageChunk[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    stack.model.setOptions({ chunkDelayMs: 0 });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'cancelled', eventId } });
    expect(deltas(chunks).join('').split(' ').length).toBeLessThan(400);
    // The cancelled turn has a row from then on, saying so.
    expect(await statusOf(eventId)).toMatchObject({ status: 'cancelled' });
  });

  it('names the event of a JSON chat turn in the x-harness-event-id header', async () => {
    const response = await stack.chat(secret, 'talker', { conversationKey: nextKey(), message: 'hello' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-harness-event-id')).toMatch(/^evt_/);
  });

  it('cancels an /async request by its event from the status route; the row says cancelled with the partial text', async () => {
    stack.model.setOptions({ chunkDelayMs: 20 });
    const key = nextKey();
    const submitted = await post<{ eventId: string }>('/agents/talker/async', { conversationKey: key, message: 'long: 400' });
    expect(submitted.status).toBe(202);
    const { eventId } = submitted.body;
    // Some text is stored only at the end; wait until the turn runs (the row says processing).
    await waitUntil('the request to run', async () => ((await statusOf(eventId)).status === 'processing' ? true : undefined), { timeoutMs: 15_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const cancel = await post<CancelAnswer>(`/status/${eventId}/cancel`);
    expect(cancel.status).toBe(202);
    expect(cancel.body).toMatchObject({ cancelled: true, state: 'running', eventId });
    const row = await waitUntil('the row to end', async () => {
      const current = await statusOf(eventId);
      return current.status === 'processing' ? undefined : current;
    }, { timeoutMs: 15_000 });
    stack.model.setOptions({ chunkDelayMs: 0 });
    expect(row.status).toBe('cancelled');
    const messages = await storedMessages('talker', key);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', cancelled: true });
    expect(row.result?.text).toBe(textOf(messages.at(-1)));
    expect((await post(`/status/${eventId}/cancel`)).status).toBe(409);
  });

  it('closes the pending approvals of a turn: answering them is a 409 and the next turn goes on', async () => {
    const key = nextKey();
    const asked = (await (await stack.chat(secret, 'asker', { conversationKey: key, message: 'search: cats' })).json()) as { status: string; pendingApprovals: { approvalId: string }[] };
    expect(asked.status).toBe('awaiting_approval');
    const approvalId = asked.pendingApprovals[0]!.approvalId;
    const cancel = await post<CancelAnswer>(`/agents/asker/conversations/${key}/cancel`);
    expect(cancel.status).toBe(202);
    expect(cancel.body).toMatchObject({ cancelled: true, state: 'waiting', closedApprovals: [approvalId] });
    const answer = await stack.chat(secret, 'asker', { conversationKey: key, message: { role: 'tool', content: [{ type: 'tool-approval-response', approvalId, approved: true }] } });
    expect(answer.status).toBe(409);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('conflict');
    expect(stack.search.requests()).toHaveLength(0);
    const conversation = await get<{ pendingApprovals: unknown[] }>(`/agents/asker/conversations/${key}`);
    expect(conversation.body.pendingApprovals).toEqual([]);
    const next = await stack.chat(secret, 'asker', { conversationKey: key, message: 'hello' });
    expect(await next.json()).toMatchObject({ status: 'completed' });
  });

  it('closes the pending approvals of an /async request by its event: the row says cancelled', async () => {
    const key = nextKey();
    const { eventId } = (await post<{ eventId: string }>('/agents/asker/async', { conversationKey: key, message: 'search: dogs' })).body;
    const waiting = await waitUntil('approval', async () => {
      const row = await statusOf(eventId);
      return row.status === 'awaiting_approval' ? row : undefined;
    }, { timeoutMs: 15_000 });
    const cancel = await post<CancelAnswer>(`/status/${eventId}/cancel`);
    expect(cancel.status).toBe(202);
    expect(cancel.body.closedApprovals).toEqual([waiting.pendingApprovals![0]!.approvalId]);
    expect((await statusOf(eventId)).status).toBe('cancelled');
  });

  it('closes the async tool calls a turn waits for: completing one is a 409 and no continuation runs', async () => {
    const key = nextKey();
    const { eventId } = (await post<{ eventId: string }>('/agents/dispatcher/async', { conversationKey: key, message: 'call test_external_async {"job":1}' })).body;
    const waiting = await waitUntil('the external call', async () => {
      const row = await statusOf(eventId);
      return row.status === 'waiting_async_tools' ? row : undefined;
    }, { timeoutMs: 15_000 });
    const resultId = waiting.pendingAsyncTools![0]!.resultId;
    const callsBefore = stack.model.callCount();
    const cancel = await post<CancelAnswer>(`/status/${eventId}/cancel`);
    expect(cancel.status).toBe(202);
    // The turn may still be ending as it starts to wait: it closes the calls itself then.
    expect(cancel.body.state).toMatch(/^(waiting|running)$/);
    await waitUntil('the row to say cancelled', async () => ((await statusOf(eventId)).status === 'cancelled' ? true : undefined), { timeoutMs: 15_000 });
    expect(await statusOf(eventId)).toMatchObject({ status: 'cancelled', error: expect.stringContaining('cancel') });
    const complete = await post<{ error: { code: string; message: string } }>(`/async-tools/${resultId}/complete`, { status: 'completed', response: { done: true } });
    expect(complete.status).toBe(409);
    expect(complete.body.error.message).toContain('cancelled');
    expect(stack.model.callCount()).toBe(callsBefore);
    expect((await statusOf(eventId)).status).toBe('cancelled');
  });

  it('kills the bash process of a cancelled turn', async () => {
    const key = nextKey();
    const marker = `sleep 61.${process.pid}`;
    const turn = await streamUntil('talker', key, `call bash ${JSON.stringify({ command: marker })}`, (chunks) => chunks.some((chunk) => chunk.type === 'tool-input-available'));
    await waitUntil('the bash process to start', () => (processesWith(marker).length > 0 ? true : undefined), { timeoutMs: 15_000 });
    const cancel = await post<CancelAnswer>(`/agents/talker/conversations/${key}/cancel`);
    expect(cancel.status).toBe(202);
    const chunks = await turn.rest();
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'cancelled' } });
    await waitUntil('the bash process to end', () => (processesWith(marker).length === 0 ? true : undefined), { timeoutMs: 15_000 });
    // The unfinished tool call is not stored: the conversation stays valid for the next turn.
    const messages = await storedMessages('talker', key);
    expect(messages.map((message) => message.role)).toEqual(['user']);
    expect(await (await stack.chat(secret, 'talker', { conversationKey: key, message: 'next' })).json()).toMatchObject({ status: 'completed' });
  });

  it("cancels a subagent's turn with its caller's", async () => {
    stack.model.setOptions({ chunkDelayMs: 20 });
    const key = nextKey();
    const childKey = subagentConversationKey(key, 'talker');
    const callsBefore = stack.model.callCount();
    const turn = await streamUntil('boss', key, `call run_subagent ${JSON.stringify({ agentId: 'talker', message: 'long: 400' })}`, (chunks) => chunks.some((chunk) => chunk.type === 'tool-input-available'));
    // The caller's model call, then the subagent's.
    await waitUntil('the subagent to call the model', () => (stack.model.callCount() >= callsBefore + 2 ? true : undefined), { timeoutMs: 15_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await post(`/agents/boss/conversations/${key}/cancel`)).status).toBe(202);
    const chunks = await turn.rest();
    stack.model.setOptions({ chunkDelayMs: 0 });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'cancelled' } });
    const child = await waitUntil('the subagent turn to end', async () => {
      const messages = (await get<{ messages?: StoredMessage[] }>(`/agents/talker/conversations/${encodeURIComponent(childKey)}`)).body.messages ?? [];
      return messages.length >= 2 ? messages : undefined;
    }, { timeoutMs: 15_000 });
    expect(child.at(-1)).toMatchObject({ role: 'assistant', cancelled: true });
    expect((await post(`/agents/talker/conversations/${encodeURIComponent(childKey)}/cancel`)).status).toBe(409);
  });

  it('a dropped SSE connection does not cancel the turn', async () => {
    stack.model.setOptions({ chunkDelayMs: 5 });
    const key = nextKey();
    const controller = new AbortController();
    const response = await fetch(`${stack.agentUrl}/agents/talker/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}`, accept: 'text/event-stream' },
      body: JSON.stringify({ conversationKey: key, message: 'long: 60' }),
      signal: controller.signal,
    });
    const reader = uiChunkStream(response).getReader();
    for (let seen = 0; seen < 3; ) if ((await reader.read()).value?.type === 'text-delta') seen += 1;
    controller.abort();
    const messages = await waitUntil('the turn to be stored', async () => {
      const stored = await get<{ messages: StoredMessage[] }>(`/agents/talker/conversations/${key}`);
      return stored.status === 200 && stored.body.messages.length === 2 ? stored.body.messages : undefined;
    }, { timeoutMs: 15_000 });
    stack.model.setOptions({ chunkDelayMs: 0 });
    expect(messages[1]?.cancelled).toBeUndefined();
    expect(textOf(messages[1]).split(' ')).toHaveLength(60);
  });

  it('answers 404 for another account and 409 when nothing runs', async () => {
    const key = nextKey();
    expect((await stack.chat(secret, 'talker', { conversationKey: key, message: 'hi' })).status).toBe(200);
    expect((await post<{ error: { code: string } }>(`/agents/talker/conversations/${key}/cancel`)).body.error.code).toBe('conflict');
    expect((await post(`/agents/nobody/conversations/${key}/cancel`)).status).toBe(404);
    expect((await post(`/status/evt_unknown/cancel`)).status).toBe(404);
    // An id with a control character cannot exist (PostgreSQL text refuses a NUL): a 400 naming it, on both backends.
    for (const answer of [await post<{ error: { code: string; message: string } }>('/status/%00nul/cancel'), await get<{ error: { code: string; message: string } }>('/status/%00nul')]) {
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toContain('eventId');
    }
    const { eventId } = (await post<{ eventId: string }>('/agents/talker/async', { conversationKey: nextKey(), message: 'hello' })).body;
    await waitUntil('the request to end', async () => ((await statusOf(eventId)).status === 'completed' ? true : undefined), { timeoutMs: 15_000 });
    const foreign = await post<{ error: { code: string } }>(`/status/${eventId}/cancel`, undefined, otherSecret);
    expect(foreign.status).toBe(404);
    const ended = await post<{ error: { code: string; message: string } }>(`/status/${eventId}/cancel`);
    expect(ended.status).toBe(409);
    expect(ended.body.error.message).toContain('completed');
  });
});
