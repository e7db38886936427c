import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summaryPromptHeading } from '../fixtures/model-server/context-window.js';
import { summaryPromptHeading as ourHeading } from '../server/core/context/summary-prompt.js';
import { startChatStack, searchKey, type ChatStack } from './support/chat-stack.js';
import { collectChunks } from './support/sse-chunks.js';

/** The fixture model refuses a request over this many tokens (its body's characters over 4). */
const window = 3_000;

interface ChatMessage {
  role: string;
  content: unknown;
  tool_calls?: { id: string }[];
  tool_call_id?: string;
}

interface StoredView {
  role: string;
  content: unknown;
  compaction?: { summarizedThrough: number; trigger: string; tokensBefore: number; tokensAfter: number };
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : ((content ?? []) as { type: string; text?: string }[]).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');

/** Every tool call of a Chat Completions request has its result after it, and every result its call before it. */
function pairsIntact(messages: ChatMessage[]): boolean {
  const open = new Set<string>();
  const seen = new Set<string>();
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) {
      open.add(call.id);
      seen.add(call.id);
    }
    if (message.role === 'tool') {
      if (!seen.has(message.tool_call_id!)) return false;
      open.delete(message.tool_call_id!);
    }
  }
  return open.size === 0;
}

describe('context compaction: a long conversation against a model with a small window', () => {
  let stack: ChatStack;
  let secret: string;

  beforeAll(async () => {
    stack = await startChatStack();
    secret = (await stack.createAccount('context-owner')).secret;
    stack.model.setOptions({ contextWindow: window });
  });
  afterAll(async () => {
    await stack.close();
  });

  const agent = (context?: Record<string, unknown>) => ({
    system: 'You are a patient assistant.',
    provider: stack.provider('chat'),
    model: { provider: 'openai', id: 'fixture-model', contextWindow: window },
    tools: { alphaSearch: { apiKey: searchKey } },
    ...(context ? { context } : {}),
  });

  it('the summary prompt is the one the fixture model recognizes', () => {
    expect(ourHeading).toBe(summaryPromptHeading);
  });

  it('every turn of a few hundred messages succeeds, no request exceeds the window, the latest message and tool pairs arrive whole, the history is stored whole', async () => {
    await stack.putAgent(secret, 'long-talker', agent());
    stack.model.resetCalls();
    const key = 'long-1';
    const sent: string[] = [];
    const turns = 90;
    let compactionParts = 0;
    for (let turn = 0; turn < turns; turn += 1) {
      const message = turn % 3 === 0 ? `search: topic number ${turn}` : `Turn ${turn}: please remember that item ${turn} is ${'colourful '.repeat(8)}and keep going.`;
      sent.push(message);
      if (turn % 2 === 0) {
        // Every other turn streamed (the compactions of this script fall on them): a compaction shows as a data-compaction part.
        const response = await stack.chat(secret, 'long-talker', { conversationKey: key, message }, 'text/event-stream');
        expect(response.status).toBe(200);
        const chunks = await collectChunks(response);
        const finish = chunks.find((chunk) => chunk.type === 'finish') as (UIMessageChunk & { messageMetadata?: { status?: string } }) | undefined;
        expect(chunks.some((chunk) => chunk.type === 'error')).toBe(false);
        expect(finish).toBeDefined();
        compactionParts += chunks.filter((chunk) => chunk.type === 'data-compaction').length;
      } else {
        const response = await stack.chat(secret, 'long-talker', { conversationKey: key, message });
        const body = (await response.json()) as { status: string; messages: { role: string }[] };
        expect(response.status, JSON.stringify(body)).toBe(200);
        expect(body.status).toBe('completed');
      }
    }
    const calls = stack.model.calls();
    // No request was refused: each got a reply with usage, within the window.
    expect(calls.every((call) => call.usage !== undefined)).toBe(true);
    expect(Math.max(...calls.map((call) => call.usage!.inputTokens))).toBeLessThanOrEqual(window);
    const summaryCalls = calls.filter((call) => JSON.stringify(call.body).includes(summaryPromptHeading));
    expect(summaryCalls.length).toBeGreaterThan(1);
    // Each turn's calls carry its own message last among the user messages, verbatim, and tool pairs whole.
    const turnCalls = calls.filter((call) => !summaryCalls.includes(call));
    for (const call of turnCalls) {
      const messages = (call.body as { messages: ChatMessage[] }).messages;
      expect(pairsIntact(messages)).toBe(true);
      const users = messages.filter((message) => message.role === 'user').map((message) => textOf(message.content));
      expect(sent).toContain(users.at(-1));
      // The system prompt is always there.
      expect(messages[0]).toMatchObject({ role: 'system' });
    }
    // Later turns send the summary in place of the older part.
    const last = (turnCalls.at(-1)!.body as { messages: ChatMessage[] }).messages;
    expect(last.some((message) => message.role === 'user' && textOf(message.content).includes('Fixture summary #'))).toBe(true);
    expect(compactionParts).toBeGreaterThan(0);

    // The stored history is whole: every message sent, in order, with the markers among them.
    const stored = await fetch(`${stack.agentUrl}/agents/long-talker/conversations/${key}`, { headers: { authorization: `Bearer ${secret}` } });
    const view = (await stored.json()) as { messages: StoredView[] };
    const markers = view.messages.filter((message) => message.compaction);
    expect(markers.length).toBe(summaryCalls.length > 0 ? markers.length : 0);
    expect(markers.length).toBeGreaterThan(0);
    for (const marker of markers) expect(marker.compaction!.tokensAfter).toBeLessThan(marker.compaction!.tokensBefore);
    const userTexts = view.messages.filter((message) => message.role === 'user' && !message.compaction).map((message) => textOf(message.content));
    expect(userTexts).toEqual(sent);
    // A summary of summaries: a later summary folds an earlier one.
    expect(markers.some((marker) => /Fixture summary #([2-9]|\d\d)/.test(textOf(marker.content)))).toBe(true);
  }, 120_000);

  it("recovers from the provider's context-length error when the configured window is larger than the real one: compacts harder and calls again", async () => {
    await stack.putAgent(secret, 'overconfident', { ...agent(), model: { provider: 'openai', id: 'fixture-model', contextWindow: 2 * window } });
    stack.model.resetCalls();
    for (let turn = 0; turn < 40; turn += 1) {
      const response = await stack.chat(secret, 'overconfident', { conversationKey: 'over-1', message: `Over turn ${turn}: ${'words and more words '.repeat(10)}` });
      expect(response.status, await response.clone().text()).toBe(200);
    }
    const calls = stack.model.calls();
    // Some requests were refused as too large, and each was followed by a summary and a call that fit.
    const refused = calls.filter((call) => call.usage === undefined);
    expect(refused.length).toBeGreaterThan(0);
    const stored = await fetch(`${stack.agentUrl}/agents/overconfident/conversations/over-1`, { headers: { authorization: `Bearer ${secret}` } });
    const view = (await stored.json()) as { messages: StoredView[] };
    expect(view.messages.some((message) => message.compaction?.trigger === 'overflow')).toBe(true);
  }, 120_000);

  it('window drops the oldest turns instead, and off sends everything until the provider refuses', async () => {
    await stack.putAgent(secret, 'windowed', agent({ strategy: 'window' }));
    stack.model.resetCalls();
    for (let turn = 0; turn < 40; turn += 1) {
      const response = await stack.chat(secret, 'windowed', { conversationKey: 'window-1', message: `Window turn ${turn}: ${'words and more words '.repeat(6)}` });
      expect(response.status).toBe(200);
    }
    const calls = stack.model.calls();
    expect(calls.every((call) => call.usage !== undefined && call.usage.inputTokens <= window)).toBe(true);
    expect(calls.some((call) => JSON.stringify(call.body).includes(summaryPromptHeading))).toBe(false);
    const lastUsers = (calls.at(-1)!.body as { messages: ChatMessage[] }).messages.filter((message) => message.role === 'user');
    expect(textOf(lastUsers.at(-1)!.content)).toContain('Window turn 39');
    expect(lastUsers.some((message) => textOf(message.content).includes('Window turn 0:'))).toBe(false);

    await stack.putAgent(secret, 'unbounded', agent({ strategy: 'off' }));
    let failed: { status: number; body: { error: { message: string } } } | undefined;
    for (let turn = 0; turn < 80 && !failed; turn += 1) {
      const response = await stack.chat(secret, 'unbounded', { conversationKey: 'off-1', message: `Off turn ${turn}: ${'words and more words '.repeat(6)}` });
      if (response.status !== 200) failed = { status: response.status, body: (await response.json()) as { error: { message: string } } };
    }
    expect(failed?.status).toBe(502);
    expect(failed?.body.error.message).toMatch(/context window/);
  }, 120_000);
});
