import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureAwsAccessKeyId } from '../fixtures/model-server/bedrock-converse.js';
import { providerBaseURLs } from '../fixtures/model-server/family-routes.js';
import type { RecordedModelCall } from '../fixtures/model-server/fixture-model-server.js';
import type { TokenUsage } from '../server/core/usage/token-usage.js';
import { type ChatStack, modelKey, searchKey, startChatStack } from './support/chat-stack.js';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Each provider: its connection at the fake, the model id, what its own reasoning option looks
 * like on the wire, and what its protocol reports (reasoning token counts, cache writes).
 */
interface ProviderCase {
  provider: string;
  connection: (origin: string) => Record<string, unknown>;
  model: string;
  reasoningSent: (body: Body) => unknown;
  /** The temperature as sent; absent where the client drops it while the model thinks (Anthropic, Bedrock, DeepSeek, OpenAI reasoning models). */
  temperatureSent?: (body: Body) => unknown;
  countsReasoning?: boolean;
  cacheWrites?: boolean;
  /** The model's reasoning text comes back (all but xAI here: see its entry). */
  reasoningText?: boolean;
  /** The protocol reports no cache reads (Mistral). */
  noCacheReads?: boolean;
}

const cases: ProviderCase[] = [
  { provider: 'anthropic', connection: (origin) => ({ apiKey: modelKey, baseURL: providerBaseURLs(origin).anthropic }), model: 'claude-sonnet-4-5', reasoningSent: (body) => body.thinking, cacheWrites: true, reasoningText: true },
  {
    provider: 'google',
    connection: (origin) => ({ apiKey: modelKey, baseURL: providerBaseURLs(origin).google }),
    model: 'gemini-2.5-flash',
    reasoningSent: (body) => body.generationConfig?.thinkingConfig,
    temperatureSent: (body) => body.generationConfig?.temperature,
    countsReasoning: true,
    reasoningText: true,
  },
  {
    provider: 'amazon-bedrock',
    connection: (origin) => ({ region: 'eu-west-1', accessKeyId: fixtureAwsAccessKeyId, secretAccessKey: modelKey, baseURL: providerBaseURLs(origin)['amazon-bedrock'] }),
    model: 'anthropic.claude-sonnet-4-5-v1:0',
    reasoningSent: (body) => body.additionalModelRequestFields?.thinking,
    cacheWrites: true,
    reasoningText: true,
  },
  { provider: 'azure', connection: (origin) => ({ apiKey: modelKey, baseURL: providerBaseURLs(origin).azure }), model: 'my-deployment', reasoningSent: (body) => body.reasoning, countsReasoning: true, reasoningText: true },
  // @ai-sdk/mistral sends its reasoning effort only for the models it knows take one.
  { provider: 'mistral', connection: (origin) => ({ apiKey: modelKey, baseURL: providerBaseURLs(origin).mistral }), model: 'mistral-small-latest', reasoningSent: (body) => body.reasoning_effort, temperatureSent: (body) => body.temperature, reasoningText: true, noCacheReads: true },
  { provider: 'groq', connection: (origin) => ({ apiKey: modelKey, baseURL: providerBaseURLs(origin).groq }), model: 'qwen/qwen3-32b', reasoningSent: (body) => [body.reasoning_effort, body.reasoning_format], temperatureSent: (body) => body.temperature, countsReasoning: true, reasoningText: true },
  // @ai-sdk/xai 5 speaks xAI's Responses API, which the fake serves on OpenAI's Responses route;
  // the fake's reasoning item lacks the `status` xAI's client requires, so no `think:` here.
  { provider: 'xai', connection: (origin) => ({ apiKey: modelKey, baseURL: `${origin}/v1` }), model: 'grok-4.3', reasoningSent: (body) => body.reasoning, countsReasoning: true },
  { provider: 'deepseek', connection: (origin) => ({ apiKey: modelKey, baseURL: providerBaseURLs(origin).deepseek }), model: 'deepseek-reasoner', reasoningSent: (body) => [body.thinking, body.reasoning_effort], countsReasoning: true, reasoningText: true },
  {
    provider: 'openai-compatible',
    connection: (origin) => ({ apiKey: modelKey, baseURL: providerBaseURLs(origin)['openai-compatible'], name: 'local-vllm' }),
    model: 'qwen3-8b',
    reasoningSent: (body) => body.reasoning_effort,
    temperatureSent: (body) => body.temperature,
    countsReasoning: true,
    reasoningText: true,
  },
];

/** What each provider's reasoning option looks like on the wire for `reasoning: "medium"`. */
const expectedReasoning: Record<string, unknown> = {
  anthropic: { type: 'enabled', budget_tokens: 8192 },
  google: { thinkingBudget: 8192, includeThoughts: true },
  'amazon-bedrock': { type: 'enabled', budget_tokens: 8192 },
  azure: { effort: 'medium', summary: 'auto' },
  mistral: 'high',
  groq: ['medium', 'parsed'],
  xai: { effort: 'medium' },
  deepseek: [{ type: 'enabled' }, 'high'],
  'openai-compatible': 'medium',
};

describe('every provider through its official client, against fakes speaking its wire protocol', () => {
  let stack: ChatStack;
  let secret: string;

  beforeAll(async () => {
    stack = await startChatStack();
    secret = (await stack.createAccount('providers')).secret;
    for (const { provider, connection, model } of cases) {
      await stack.putAgent(secret, `on-${provider}`, {
        provider: { [provider]: connection(stack.model.origin) },
        model: { provider, id: model, temperature: 0.25, reasoning: 'medium', maxOutputTokens: 30_000 },
        tools: { alphaSearch: { apiKey: searchKey, maxResults: 1 } },
      });
    }
  });
  afterAll(async () => {
    await stack.close();
  });

  /** Each provider's turn usage, as its status row gave it. */
  const turnUsage = new Map<string, TokenUsage>();
  const get = async <T>(path: string): Promise<T> => (await (await fetch(`${stack.agentUrl}${path}`, { headers: { authorization: `Bearer ${secret}` } })).json()) as T;

  it.each(cases)('runs a turn with reasoning and a tool call on $provider', async ({ provider, model, reasoningSent, temperatureSent, countsReasoning, cacheWrites, reasoningText, noCacheReads }) => {
    const before = stack.model.callCount();
    const message = `${reasoningText ? 'think: weighing the cats\n' : ''}usage: cached=3 written=2 reasoning=5\nsearch: cats`;
    const submitted = await fetch(`${stack.agentUrl}/agents/on-${provider}/async`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ conversationKey: `c-${provider}`, message }),
    });
    const { eventId } = (await submitted.json()) as { eventId: string };
    let status: { status: string; usage: TokenUsage; usageByCall: TokenUsage[]; result?: { text: string }; error?: string };
    for (;;) {
      await stack.core.asyncWorker.idle();
      status = await get(`/status/${eventId}`);
      if (status.status === 'completed' || status.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(status.error).toBeUndefined();
    expect(status.status).toBe('completed');
    expect(status.result?.text).toContain('alphaSearch: ');

    // What reached the fake: two calls (the tool call, then the answer after its result), each
    // authenticated the protocol's way, with the model id, the temperature and the reasoning option.
    const calls: RecordedModelCall[] = stack.model.calls().slice(before);
    expect(calls.length).toBe(2);
    for (const call of calls) expect(call.auth).toEqual({ present: true, valid: true });
    const first = calls[0]!.body as Body;
    expect(first.model ?? decodeURIComponent(calls[0]!.endpoint)).toContain(model);
    expect(reasoningSent(first)).toEqual(expectedReasoning[provider]);
    if (temperatureSent) expect(temperatureSent(first)).toBe(0.25);

    // What came back: the usage with its details and who answered, on the status row and on
    // the stored assistant messages, and the reasoning text.
    expect(status.usage).toMatchObject({ provider, model });
    if (!noCacheReads) expect(status.usage.cachedInputTokens).toBe(3);
    turnUsage.set(provider, status.usage);
    if (countsReasoning) expect(status.usage.reasoningTokens).toBe(5);
    if (cacheWrites) expect(status.usage.cacheWriteTokens).toBe(2);
    expect(status.usageByCall.map((call) => [call.provider, call.model])).toEqual([
      [provider, model],
      [provider, model],
    ]);
    const { messages } = await get<{ messages: { role: string; content: unknown; usage?: TokenUsage }[] }>(`/agents/on-${provider}/conversations/c-${provider}`);
    const assistant = messages.filter((stored) => stored.role === 'assistant');
    expect(assistant.map((stored) => [stored.usage?.provider, stored.usage?.model])).toEqual([
      [provider, model],
      [provider, model],
    ]);
    if (reasoningText) expect(JSON.stringify(assistant[0]!.content)).toContain('weighing the cats');
  });

  it('reports the usage per provider and model (?by=model), beside the rows per agent', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const read = async (query: string) => (await (await fetch(`${stack.accountUrl}/accounts/me/usage?from=${today}&to=${today}${query}`, { headers: { authorization: `Bearer ${secret}` } })).json()) as { usage: (TokenUsage & { agentId: string; turns?: number })[] };
    const byModel = await read('&by=model');
    for (const { provider, model } of cases) {
      const row = byModel.usage.find((entry) => entry.agentId === `on-${provider}`);
      const { totalTokens, cachedInputTokens, cacheWriteTokens, reasoningTokens } = turnUsage.get(provider)!;
      expect(row).toEqual({ agentId: `on-${provider}`, day: today, provider, model, inputTokens: expect.any(Number), outputTokens: expect.any(Number), totalTokens, ...JSON.parse(JSON.stringify({ cachedInputTokens, cacheWriteTokens, reasoningTokens })) });
    }
    const byAgent = await read('');
    expect(byAgent.usage.find((entry) => entry.agentId === 'on-google')).toMatchObject({ turns: 1, totalTokens: turnUsage.get('google')!.totalTokens });
  });
});

describe('provider connections through the account API', () => {
  let stack: ChatStack;
  let secret: string;
  const put = (agentId: string, config: unknown) =>
    fetch(`${stack.accountUrl}/accounts/me/agents/${agentId}`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` }, body: JSON.stringify({ config }) });

  beforeAll(async () => {
    stack = await startChatStack({ outbound: { mode: 'public', allow: [] } });
    secret = (await stack.createAccount('connections')).secret;
  });
  afterAll(async () => {
    await stack.close();
  });

  /** Every provider's connection with each secret field it takes, at a public address. */
  const connections: Record<string, Record<string, unknown>> = {
    openai: { apiKey: 'sk-openai-0123456789', headers: { 'X-Org': 'org-header-secret-01' } },
    anthropic: { apiKey: 'sk-ant-0123456789abc' },
    google: { apiKey: 'google-key-0123456789' },
    'amazon-bedrock': { region: 'eu-west-1', accessKeyId: 'AKIAEXAMPLE000000001', secretAccessKey: 'bedrock-secret-0123456789', sessionToken: 'bedrock-session-0123456789' },
    azure: { apiKey: 'azure-key-0123456789', resourceName: 'my-resource' },
    mistral: { apiKey: 'mistral-key-0123456789' },
    groq: { apiKey: 'groq-key-0123456789ab' },
    xai: { apiKey: 'xai-key-0123456789abc' },
    deepseek: { apiKey: 'deepseek-key-01234567' },
    'openai-compatible': { apiKey: 'compatible-key-012345', baseURL: 'https://llm.example.com/v1', name: 'example' },
  };

  it.each(Object.keys(connections))('stores %s with every secret encrypted and shows it redacted', async (provider) => {
    const response = await put(`keys-${provider}`, { provider: { [provider]: connections[provider] }, model: { provider, id: 'some-model' } });
    expect(response.status).toBeLessThan(300);
    const shown = await (await fetch(`${stack.accountUrl}/accounts/me/agents/keys-${provider}`, { headers: { authorization: `Bearer ${secret}` } })).text();
    const secrets = Object.entries(connections[provider]!).flatMap(([field, value]) => (field === 'headers' ? Object.values(value as object) : /key|secret|token/i.test(field) ? [value] : []));
    for (const value of secrets) expect(shown).not.toContain(value);
    expect(shown).toContain('"redacted":true');
  });

  it.each(Object.keys(connections))('refuses a literal private baseURL for %s under the public outbound policy', async (provider) => {
    const response = await put(`private-${provider}`, { provider: { [provider]: { ...connections[provider], baseURL: 'http://192.168.1.20:8000/v1' } }, model: { provider, id: 'm' } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(`config.provider.${provider}.baseURL points at 192.168.1.20, a private address`);
  });

  it('refuses an unknown provider and a model on a provider not configured', async () => {
    const unknown = await put('unknown', { provider: { cohere: { apiKey: 'k' } } });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain('config.provider.cohere is not a supported provider');
    const missing = await put('missing', { provider: { anthropic: { apiKey: 'k' } }, model: { provider: 'google', id: 'gemini-2.5-flash' } });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain('config.model.provider is "google" but config.provider.google is not configured');
  });
});
