import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatStack, searchKey, type ChatStack } from './support/chat-stack.js';
import { requestJson } from './support/json-request.js';
import { collectChunks, uiChunkStream } from './support/sse-chunks.js';
import { waitUntil } from './support/wait-until.js';

interface ChatAnswer {
  status: string;
  text: string;
  eventId?: string;
  busy?: { mode: string; runEventId: string };
}

interface StoredMessage {
  role: string;
  content: unknown;
  cancelled?: boolean;
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : ((content ?? []) as { type: string; text?: string }[]).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');

/** The user texts one Chat Completions request sent to the model, in order. */
const userTextsOf = (body: unknown): string[] =>
  ((body as { messages: { role: string; content: unknown }[] }).messages ?? []).filter((message) => message.role === 'user').map((message) => textOf(message.content));

describe('busy conversations: a message that meets a running turn', () => {
  let stack: ChatStack;
  let secret: string;
  let keys = 0;
  const nextKey = () => `busy-${(keys += 1)}`;

  beforeAll(async () => {
    stack = await startChatStack();
    secret = (await stack.createAccount('busy-owner')).secret;
    await stack.putAgent(secret, 'talker', { provider: stack.provider('chat'), tools: { alphaSearch: { apiKey: searchKey } } });
    await stack.putAgent(secret, 'collector', { provider: stack.provider('chat'), busy: 'collect' });
    // A running turn streams slowly: `long: <n>` words are n x 20 ms of streaming, the window later messages arrive in.
    stack.model.setOptions({ chunkDelayMs: 20 });
  });
  afterAll(async () => {
    await stack.close();
  });

  const chatJson = async (agentId: string, body: Record<string, unknown>) => {
    const response = await stack.chat(secret, agentId, body);
    return { status: response.status, body: (await response.json()) as ChatAnswer & { error?: { code: string; message: string; eventId?: string } } };
  };

  /** Starts a streamed turn and waits until it runs (its first text): returns its event id and the rest of its stream. */
  const startRunning = async (agentId: string, key: string, message: string) => {
    const response = await stack.chat(secret, agentId, { conversationKey: key, message }, 'text/event-stream');
    expect(response.status).toBe(200);
    const eventId = response.headers.get('x-harness-event-id')!;
    const reader = uiChunkStream(response).getReader();
    const chunks: UIMessageChunk[] = [];
    while (!chunks.some((chunk) => chunk.type === 'text-delta')) {
      const next = await reader.read();
      if (next.done) throw new Error('the turn ended before it said anything');
      chunks.push(next.value);
    }
    const rest = async () => {
      for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
      return chunks;
    };
    return { eventId, rest };
  };

  const stored = async (agentId: string, key: string) =>
    (await requestJson<{ messages: StoredMessage[] }>(`${stack.agentUrl}/agents/${agentId}/conversations/${key}`, { secret })).body.messages.map((message) => ({ role: message.role, text: textOf(message.content), ...(message.cancelled ? { cancelled: true } : {}) }));

  const callsSince = (from: number) => stack.model.calls().slice(from);

  it('reject: 409 conversation_busy naming the running eventId; nothing is stored or run for the refused message', async () => {
    const key = nextKey();
    const before = stack.model.callCount();
    const running = await startRunning('talker', key, 'long: 100');
    const refused = await chatJson('talker', { conversationKey: key, message: 'second', busy: 'reject' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conversation_busy', eventId: running.eventId });
    expect(refused.body.error!.message).toContain(running.eventId);
    await running.rest();
    expect(callsSince(before)).toHaveLength(1);
    expect((await stored('talker', key)).map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('a bad busy value is a 400 naming the field', async () => {
    const answer = await chatJson('talker', { conversationKey: nextKey(), message: 'hello', busy: 'later' });
    expect(answer.status).toBe(400);
    expect(answer.body.error!.message).toContain('busy');
    const badConfig = await requestJson(`${stack.accountUrl}/accounts/me/agents/bad-busy`, { method: 'PUT', secret, body: { config: { provider: stack.provider('chat'), busy: 'sometimes' } } });
    expect(badConfig.status).toBe(400);
  });

  it('queue (the default for the direct API): the second message runs after the first, which it sees', async () => {
    const key = nextKey();
    const before = stack.model.callCount();
    const running = await startRunning('talker', key, 'long: 100');
    const second = await chatJson('talker', { conversationKey: key, message: 'second' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'completed', text: 'Echo: second', busy: { mode: 'queue', runEventId: running.eventId } });
    await running.rest();
    const calls = callsSince(before);
    expect(calls).toHaveLength(2);
    expect(userTextsOf(calls[1]!.body)).toEqual(['long: 100', 'second']);
    expect((await stored('talker', key)).map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('collect: messages sent during a run are answered together by one next turn', async () => {
    const key = nextKey();
    const before = stack.model.callCount();
    const running = await startRunning('collector', key, 'long: 100');
    // The first of the two to reach the inbox brings the next turn; the other is answered by it.
    const answers = await Promise.all(['second', 'third'].map((message) => chatJson('collector', { conversationKey: key, message })));
    const carrier = answers.find((answer) => answer.body.status === 'completed')!;
    const collected = answers.find((answer) => answer.body.status === 'collected')!;
    expect(carrier && collected).toBeTruthy();
    expect(collected.status).toBe(200);
    expect(collected.body.busy).toEqual({ mode: 'collect', runEventId: carrier.body.busy!.runEventId });
    expect(collected.body.eventId).toBe(carrier.body.busy!.runEventId);
    expect(carrier.body.busy!.mode).toBe('collect');
    await running.rest();
    const calls = callsSince(before);
    expect(calls).toHaveLength(2);
    const gathered = userTextsOf(calls[1]!.body);
    expect(gathered[0]).toBe('long: 100');
    expect(new Set(gathered.slice(1))).toEqual(new Set(['second', 'third']));
    const messages = (await stored('collector', key)).map((message) => `${message.role}:${message.text}`);
    expect(messages).toHaveLength(5);
    expect(messages.slice(0, 2).map((message) => message.split(':')[0])).toEqual(['user', 'assistant']);
    expect(messages.slice(2, 4).sort()).toEqual(['user:second', 'user:third']);
    expect(carrier.body.text).toBe(messages[4]!.replace('assistant:', ''));
  });

  it('steer: the message is given to the running turn after its tool calls, and the run goes on with it', async () => {
    const key = nextKey();
    const before = stack.model.callCount();
    const running = await startRunning('talker', key, 'long: 60\nsearch: cats\nthen after the search');
    const steered = await chatJson('talker', { conversationKey: key, message: 'use dogs instead', busy: 'steer' });
    expect(steered.status).toBe(200);
    expect(steered.body).toMatchObject({ status: 'steered', eventId: running.eventId, busy: { mode: 'steer', runEventId: running.eventId } });
    const chunks = await running.rest();
    expect(chunks.some((chunk) => chunk.type === ('data-steer' as string))).toBe(true);
    const calls = callsSince(before);
    expect(calls).toHaveLength(2);
    expect(userTextsOf(calls[1]!.body)).toEqual(['long: 60\nsearch: cats\nthen after the search', 'use dogs instead']);
    const messages = await stored('talker', key);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(messages.at(-1)!.text).toBe('Echo: use dogs instead');
  });

  it('steer with no step boundary left runs as queue', async () => {
    const key = nextKey();
    const running = await startRunning('talker', key, 'long: 100');
    const steered = await chatJson('talker', { conversationKey: key, message: 'second', busy: 'steer' });
    expect(steered.body).toMatchObject({ status: 'completed', text: 'Echo: second', busy: { mode: 'steer', runEventId: running.eventId } });
    await running.rest();
    expect((await stored('talker', key)).map((message) => `${message.role}:${message.role === 'user' ? message.text : ''}`)).toEqual(['user:long: 100', 'assistant:', 'user:second', 'assistant:']);
  });

  it('interrupt: the running turn is cancelled, what it streamed kept and marked, and the new message runs at once', async () => {
    {
      const key = nextKey();
      const running = await startRunning('talker', key, 'long: 400');
      const interrupting = await chatJson('talker', { conversationKey: key, message: 'stop that', busy: 'interrupt' });
      expect(interrupting.body).toMatchObject({ status: 'completed', busy: { mode: 'interrupt', runEventId: running.eventId } });
      const chunks = await running.rest();
      expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'cancelled' } });
      const messages = await stored('talker', key);
      expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      expect(messages[1]).toMatchObject({ cancelled: true });
    }
  });

  it('/async with reject is refused before anything is queued; with queue the status row names the run it waited for', async () => {
    const key = nextKey();
    const running = await startRunning('talker', key, 'long: 100');
    const refused = await requestJson<{ error: { code: string; eventId: string } }>(`${stack.agentUrl}/agents/talker/async`, { method: 'POST', secret, body: { conversationKey: key, message: 'no', busy: 'reject' } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conversation_busy', eventId: running.eventId });
    const queued = await requestJson<{ eventId: string }>(`${stack.agentUrl}/agents/talker/async`, { method: 'POST', secret, body: { conversationKey: key, message: 'later' } });
    expect(queued.status).toBe(202);
    await running.rest();
    const row = await waitUntil('the queued request to complete', async () => {
      const current = (await requestJson<{ status: string; busy?: unknown; result?: { text: string } }>(`${stack.agentUrl}/status/${queued.body.eventId}`, { secret })).body;
      return current.status === 'completed' ? current : undefined;
    });
    expect(row).toMatchObject({ status: 'completed', result: { text: 'Echo: later' } });
  });

  it('over SSE a message that meets a running turn says what became of it in a data-busy part', async () => {
    const key = nextKey();
    const running = await startRunning('collector', key, 'long: 100');
    const [json, response] = await Promise.all([
      chatJson('collector', { conversationKey: key, message: 'second' }),
      stack.chat(secret, 'collector', { conversationKey: key, message: 'third' }, 'text/event-stream'),
    ]);
    const chunks = await collectChunks(response);
    const finish = chunks.at(-1) as { type: string; messageMetadata: { status: string } };
    const busy = chunks.find((chunk) => chunk.type === ('data-busy' as string)) as { data: { mode: string; runEventId: string } } | undefined;
    expect(busy?.data.mode).toBe('collect');
    // One of the two brought the next turn; the other was collected into it.
    expect([finish.messageMetadata.status, json.body.status].sort()).toEqual(['collected', 'completed']);
    await running.rest();
  });

});
