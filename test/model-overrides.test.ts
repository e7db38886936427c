import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerBaseURLs } from '../fixtures/model-server/family-routes.js';
import { type ChatStack, modelKey, startChatStack } from './support/chat-stack.js';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A request's `model` settings and `instructions` (issue 24 item 8): they reach the model for
 * that run only, are never stored, and a request cannot choose the provider, the model or a key.
 */
describe('per-request model settings and instructions', () => {
  let stack: ChatStack;
  let secret: string;

  beforeAll(async () => {
    stack = await startChatStack();
    secret = (await stack.createAccount('overrides')).secret;
    await stack.putAgent(secret, 'compatible', {
      system: 'You are the agent.',
      provider: { 'openai-compatible': { apiKey: modelKey, baseURL: providerBaseURLs(stack.model.origin)['openai-compatible'] } },
      model: { provider: 'openai-compatible', id: 'qwen3-8b', temperature: 0.25, topP: 0.9, maxOutputTokens: 1000, reasoning: 'low', providerOptions: { openaiCompatible: { user: 'config-user' } } },
    });
    await stack.putAgent(secret, 'claude', {
      system: 'You are the agent.',
      provider: { anthropic: { apiKey: modelKey, baseURL: providerBaseURLs(stack.model.origin).anthropic } },
      model: { provider: 'anthropic', id: 'claude-sonnet-4-5', reasoning: 'low', maxOutputTokens: 30_000 },
    });
  });
  afterAll(async () => {
    await stack.close();
  });

  /** Sends one chat turn and answers the bodies the fake got for it. */
  const turn = async (agentId: string, body: Record<string, unknown>): Promise<{ status: number; answer: Body; sent: Body[] }> => {
    const before = stack.model.callCount();
    const response = await stack.chat(secret, agentId, body);
    return { status: response.status, answer: (await response.json()) as Body, sent: stack.model.calls().slice(before).map((call) => call.body as Body) };
  };

  it('sends the request\'s settings for its turn only; the next turn sends config.model\'s', async () => {
    const overridden = await turn('compatible', {
      conversationKey: 'settings',
      message: 'hello',
      model: { temperature: 1.5, topP: 0.5, maxOutputTokens: 77, reasoning: 'high', providerOptions: { openaiCompatible: { textVerbosity: 'low' } } },
    });
    expect(overridden.status).toBe(200);
    expect(overridden.sent).toHaveLength(1);
    // `providerOptions` deep-merged: the config's `user` kept beside the request's own option.
    expect(overridden.sent[0]).toMatchObject({ model: 'qwen3-8b', temperature: 1.5, top_p: 0.5, max_tokens: 77, reasoning_effort: 'high', user: 'config-user', verbosity: 'low' });

    const plain = await turn('compatible', { conversationKey: 'settings', message: 'again' });
    expect(plain.sent[0]).toMatchObject({ temperature: 0.25, top_p: 0.9, max_tokens: 1000, reasoning_effort: 'low', user: 'config-user' });
    expect(plain.sent[0]).not.toHaveProperty('verbosity');
  });

  it('lets the request\'s providerOptions win over its own reasoning and the config\'s options', async () => {
    const { sent } = await turn('compatible', { conversationKey: 'options', message: 'hello', model: { reasoning: 'high', providerOptions: { openaiCompatible: { reasoningEffort: 'medium', user: 'request-user' } } } });
    expect(sent[0]).toMatchObject({ reasoning_effort: 'medium', user: 'request-user' });
  });

  it('maps the request\'s reasoning to the provider\'s own form (an Anthropic thinking budget)', async () => {
    const high = await turn('claude', { conversationKey: 'thinking', message: 'hello', model: { reasoning: 'high' } });
    expect(high.status).toBe(200);
    expect(high.sent[0]!.thinking).toEqual({ type: 'enabled', budget_tokens: 24576 });
    const none = await turn('claude', { conversationKey: 'thinking', message: 'hello', model: { reasoning: 'none' } });
    expect(none.sent[0]!.thinking).toEqual({ type: 'disabled' });
    const plain = await turn('claude', { conversationKey: 'thinking', message: 'hello' });
    expect(plain.sent[0]!.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });

  it.each([
    ['provider', { provider: 'anthropic' }],
    ['id', { id: 'other-model' }],
    ['apiKey', { apiKey: 'sk-someone-else' }],
    ['fallbacks', { fallbacks: [] }],
  ])('refuses model.%s with a 400 naming the field', async (field, model) => {
    const { status, answer, sent } = await turn('compatible', { conversationKey: 'refused', message: 'hello', model });
    expect(status).toBe(400);
    expect(answer.error.message).toContain(`model.${field}`);
    expect(sent).toHaveLength(0);
  });

  it('refuses a setting out of range, naming it', async () => {
    const { status, answer } = await turn('compatible', { conversationKey: 'refused', message: 'hello', model: { temperature: 7 } });
    expect(status).toBe(400);
    expect(answer.error.message).toContain('model.temperature');
  });

  it('adds instructions to the system text of that turn only, never to the stored conversation', async () => {
    const instructions = 'Answer in French, for this turn only.';
    const withInstructions = await turn('compatible', { conversationKey: 'instructed', message: 'hello', instructions });
    expect(withInstructions.status).toBe(200);
    const system = (withInstructions.sent[0]!.messages as Body[]).filter((message) => message.role === 'system');
    expect(system.map((message) => message.content).join('\n')).toContain('You are the agent.');
    expect(system.map((message) => message.content).join('\n')).toContain(instructions);

    const next = await turn('compatible', { conversationKey: 'instructed', message: 'again' });
    expect(JSON.stringify(next.sent[0]!.messages)).not.toContain(instructions);
    expect(JSON.stringify(next.sent[0]!.messages)).toContain('You are the agent.');

    const stored = await (await fetch(`${stack.agentUrl}/agents/compatible/conversations/instructed`, { headers: { authorization: `Bearer ${secret}` } })).json();
    expect(JSON.stringify(stored)).toContain('hello');
    expect(JSON.stringify(stored)).not.toContain(instructions);
  });

  it('sends instructions in the protocol\'s system field (Anthropic `system`)', async () => {
    const { sent } = await turn('claude', { conversationKey: 'instructed', message: 'hello', instructions: 'Be brief.' });
    expect(JSON.stringify(sent[0]!.system)).toContain('Be brief.');
  });

  it('refuses instructions over 20,000 characters, and instructions that are not a string', async () => {
    const long = await turn('compatible', { conversationKey: 'long', message: 'hello', instructions: 'x'.repeat(20_001) });
    expect(long.status).toBe(400);
    expect(long.answer.error.message).toContain('instructions');
    expect(long.sent).toHaveLength(0);
    const atLimit = await turn('compatible', { conversationKey: 'long', message: 'hello', instructions: 'x'.repeat(20_000) });
    expect(atLimit.status).toBe(200);
    const notText = await turn('compatible', { conversationKey: 'long', message: 'hello', instructions: 42 });
    expect(notText.status).toBe(400);
  });

  it('carries the settings and instructions through /async to the worker\'s run', async () => {
    const before = stack.model.callCount();
    const submitted = await fetch(`${stack.agentUrl}/agents/compatible/async`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ conversationKey: 'queued', message: 'hello', model: { temperature: 1.25 }, instructions: 'Queued instructions.' }),
    });
    expect(submitted.status).toBe(202);
    const { eventId } = (await submitted.json()) as { eventId: string };
    let status: Body;
    for (;;) {
      await stack.core.asyncWorker.idle();
      status = (await (await fetch(`${stack.agentUrl}/status/${eventId}`, { headers: { authorization: `Bearer ${secret}` } })).json()) as Body;
      if (status.status === 'completed' || status.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(status.status).toBe('completed');
    expect(JSON.stringify(status)).not.toContain('Queued instructions.');
    const sent = stack.model.calls().slice(before)[0]!.body as Body;
    expect(sent.temperature).toBe(1.25);
    expect(JSON.stringify(sent.messages)).toContain('Queued instructions.');
    const refused = await fetch(`${stack.agentUrl}/agents/compatible/async`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ conversationKey: 'queued', message: 'hello', model: { id: 'x' } }),
    });
    expect(refused.status).toBe(400);
  });
});
