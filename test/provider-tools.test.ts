import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerBaseURLs } from '../fixtures/model-server/family-routes.js';
import { type ChatStack, modelKey, startChatStack } from './support/chat-stack.js';
import { collectChunks } from './support/sse-chunks.js';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * `betaSearch`, `codeExecution` and `urlContext` are the provider's own tools: an agent on each
 * provider sends its provider's definition of them, and the fake (which knows `web:` where the
 * protocol has a web search) answers through the provider-run search.
 */
const cases = [
  {
    provider: 'openai',
    connection: (origin: string) => ({ apiKey: modelKey, baseURL: `${origin}/v1` }),
    model: 'gpt-5',
    tools: { betaSearch: {}, codeExecution: {} },
    sent: (body: Body) => body.tools,
    expected: [expect.objectContaining({ type: 'web_search' }), expect.objectContaining({ type: 'code_interpreter', container: { type: 'auto' } })],
  },
  {
    provider: 'anthropic',
    connection: (origin: string) => ({ apiKey: modelKey, baseURL: providerBaseURLs(origin).anthropic }),
    model: 'claude-sonnet-4-5',
    tools: { betaSearch: {}, codeExecution: {} },
    sent: (body: Body) => body.tools,
    expected: [
      { type: 'web_search_20250305', name: 'web_search' },
      { type: 'code_execution_20250825', name: 'code_execution' },
    ],
  },
  {
    provider: 'google',
    connection: (origin: string) => ({ apiKey: modelKey, baseURL: providerBaseURLs(origin).google }),
    model: 'gemini-2.5-flash',
    tools: { betaSearch: {}, codeExecution: {}, urlContext: {} },
    sent: (body: Body) => body.tools,
    expected: [{ googleSearch: {} }, { codeExecution: {} }, { urlContext: {} }],
  },
];

describe('provider-defined tools follow the agent’s provider', () => {
  let stack: ChatStack;
  let secret: string;

  beforeAll(async () => {
    stack = await startChatStack();
    secret = (await stack.createAccount('provider-tools')).secret;
    for (const { provider, connection, model, tools } of cases) {
      await stack.putAgent(secret, `tools-on-${provider}`, { provider: { [provider]: connection(stack.model.origin) }, model: { provider, id: model }, tools });
    }
  });
  afterAll(async () => {
    await stack.close();
  });

  it.each(cases)('sends $provider its own tool definitions and gets the provider-run web search back', async ({ provider, sent, expected }) => {
    const before = stack.model.callCount();
    const response = await stack.chat(secret, `tools-on-${provider}`, { conversationKey: `web-${provider}`, message: 'web: harness' }, 'text/event-stream');
    expect(response.status).toBe(200);
    const chunks = await collectChunks(response);
    const calls = stack.model.calls().slice(before);
    expect(calls).toHaveLength(1);
    expect(sent(calls[0]!.body as Body)).toEqual(expected);
    const text = chunks.flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.delta] : [])).join('');
    expect(text).toContain('Web results for harness');
    expect(chunks.some((chunk) => chunk.type === 'source-url')).toBe(true);
  });

  it('refuses, naming the field, a provider-defined tool the chosen provider does not have', async () => {
    const put = (agentId: string, config: unknown) =>
      fetch(`${stack.accountUrl}/accounts/me/agents/${agentId}`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` }, body: JSON.stringify({ config }) });
    const onMistral = await put('search-on-mistral', { provider: { mistral: { apiKey: modelKey, baseURL: providerBaseURLs(stack.model.origin).mistral } }, model: { provider: 'mistral', id: 'mistral-small-latest' }, tools: { betaSearch: {} } });
    expect(onMistral.status).toBe(400);
    expect(((await onMistral.json()) as { error: { code: string; message: string } }).error).toEqual({
      code: 'invalid_request',
      message: 'config.tools.betaSearch is the model provider\'s own web search, which config.model.provider "mistral" does not have (providers that have it: openai (api "responses"), anthropic, google, azure (api "responses"), xai)',
    });
    const urlOnAnthropic = await put('url-on-anthropic', { provider: { anthropic: { apiKey: modelKey } }, model: { provider: 'anthropic', id: 'claude-sonnet-4-5' }, tools: { urlContext: {} } });
    expect(urlOnAnthropic.status).toBe(400);
    expect(((await urlOnAnthropic.json()) as { error: { message: string } }).error.message).toContain('config.tools.urlContext is the model provider\'s own URL context, which config.model.provider "anthropic" does not have (providers that have it: google)');
  });
});
