import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summaryPromptHeading } from '../fixtures/model-server/context-window.js';
import { createHarnessClient } from '../client/index.js';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { requestJson } from './support/json-request.js';
import { uiChunkStream } from './support/sse-chunks.js';

interface CompactionAnswer {
  conversationKey: string;
  compacted: boolean;
  tokensBefore: number;
  tokensAfter: number;
  messages: number;
  marker?: { role: string; content: { type: string; text: string }[]; compaction: { summarizedThrough: number; trigger: string; tokensBefore: number; tokensAfter: number } };
  error?: { code: string; message: string; eventId?: string };
}

interface StoredView {
  role: string;
  content: unknown;
  compaction?: { summarizedThrough: number; trigger: string };
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : ((content ?? []) as { type: string; text?: string }[]).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');

describe('POST /agents/{agentId}/conversations/{conversationKey}/compact', () => {
  let stack: ChatStack;
  let secret: string;
  let otherSecret: string;

  beforeAll(async () => {
    stack = await startChatStack();
    secret = (await stack.createAccount('compact-owner')).secret;
    otherSecret = (await stack.createAccount('compact-stranger')).secret;
    await stack.putAgent(secret, 'talker', { system: 'You are brief.', provider: stack.provider('chat') });
    await stack.putAgent(secret, 'whole', { provider: stack.provider('chat'), context: { strategy: 'off' } });
  });
  afterAll(async () => {
    await stack.close();
  });

  const compact = (agentId: string, key: string, as = secret) => requestJson<CompactionAnswer>(`${stack.agentUrl}/agents/${agentId}/conversations/${key}/compact`, { method: 'POST', secret: as });
  const say = async (agentId: string, key: string, message: string) => {
    const response = await stack.chat(secret, agentId, { conversationKey: key, message });
    expect(response.status).toBe(200);
    await response.json();
  };
  const stored = async (key: string) => (await requestJson<{ messages: StoredView[] }>(`${stack.agentUrl}/agents/talker/conversations/${key}`, { secret })).body.messages;
  const tokensUsed = async () => {
    const report = await requestJson<{ days?: { totalTokens: number }[]; total?: { totalTokens: number } }>(`${stack.accountUrl}/accounts/me/usage`, { secret });
    return JSON.stringify(report.body);
  };

  it('summarizes everything before the latest turn, stores a manual marker, and the next turn sends the summary instead', async () => {
    const key = 'compact-1';
    for (const message of ['first: the launch is on Friday', 'second: the budget is 40k', 'third: Ana owns the slides']) await say('talker', key, message);
    const usageBefore = await tokensUsed();
    const callsBefore = stack.model.callCount();

    const answer = await compact('talker', key);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ conversationKey: key, compacted: true, messages: 4 });
    expect(answer.body.tokensAfter).toBeLessThanOrEqual(answer.body.tokensBefore);
    expect(answer.body.marker).toMatchObject({ role: 'user', compaction: { summarizedThrough: 4, trigger: 'manual' } });
    expect(textOf(answer.body.marker!.content)).toContain('Fixture summary #');
    // One summary call, with our prompt, counted in the account's usage.
    const summaryCalls = stack.model.calls().slice(callsBefore);
    expect(summaryCalls).toHaveLength(1);
    expect(JSON.stringify(summaryCalls[0]!.body)).toContain(summaryPromptHeading);
    expect(await tokensUsed()).not.toBe(usageBefore);

    // The stored history is whole, the marker after it.
    const messages = await stored(key);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(messages.at(-1)).toMatchObject({ compaction: { trigger: 'manual', summarizedThrough: 4 } });

    // The next turn sends the summary, the latest turn and the new message; not the folded ones.
    const callsBeforeTurn = stack.model.callCount();
    await say('talker', key, 'fourth: what did we decide?');
    const sent = (stack.model.calls()[callsBeforeTurn]!.body as { messages: { role: string; content: unknown }[] }).messages;
    const userTexts = sent.filter((message) => message.role === 'user').map((message) => textOf(message.content));
    expect(userTexts[0]).toContain('Fixture summary #');
    expect(userTexts.slice(1)).toEqual(['third: Ana owns the slides', 'fourth: what did we decide?']);
    expect(sent[0]).toMatchObject({ role: 'system' });
  });

  it('a conversation of one turn has nothing older: compacted false, no model call, nothing stored', async () => {
    const key = 'compact-short';
    await say('talker', key, 'only one');
    const callsBefore = stack.model.callCount();
    const answer = await compact('talker', key);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ compacted: false, messages: 0 });
    expect(answer.body.marker).toBeUndefined();
    expect(stack.model.callCount()).toBe(callsBefore);
    expect((await stored(key)).some((message) => message.compaction)).toBe(false);
  });

  it('404 for an unknown conversation, an unknown agent and another account; 409 with strategy off', async () => {
    await say('talker', 'compact-private', 'mine');
    await say('talker', 'compact-private', 'still mine');
    expect((await compact('talker', 'never-started')).status).toBe(404);
    expect((await compact('nobody', 'compact-private')).status).toBe(404);
    const stranger = await compact('talker', 'compact-private', otherSecret);
    expect(stranger.status).toBe(404);
    expect(stranger.body.error?.code).toBe('not_found');
    await say('whole', 'compact-off', 'one');
    await say('whole', 'compact-off', 'two');
    const off = await compact('whole', 'compact-off');
    expect(off.status).toBe(409);
    expect(off.body.error).toMatchObject({ code: 'conflict' });
    expect(off.body.error!.message).toContain('off');
  });

  it('409 conversation_busy naming the running turn while one runs; the client method compacts once it ended', async () => {
    const key = 'compact-busy';
    await say('talker', key, 'before the long one');
    stack.model.setOptions({ chunkDelayMs: 20 });
    try {
      const response = await stack.chat(secret, 'talker', { conversationKey: key, message: 'long: 60' }, 'text/event-stream');
      const eventId = response.headers.get('x-harness-event-id')!;
      const reader = uiChunkStream(response).getReader();
      const chunks: UIMessageChunk[] = [];
      while (!chunks.some((chunk) => chunk.type === 'text-delta')) chunks.push((await reader.read()).value!);
      const refused = await compact('talker', key);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'conversation_busy', eventId });
      for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    } finally {
      stack.model.setOptions({ chunkDelayMs: 0 });
    }
    const client = createHarnessClient({ accountUrl: stack.accountUrl, agentUrl: stack.agentUrl, secret });
    const answer = await client.chat.compact('talker', key);
    expect(answer).toMatchObject({ compacted: true, marker: { compaction: { trigger: 'manual', summarizedThrough: 2 } } });
  });
});
