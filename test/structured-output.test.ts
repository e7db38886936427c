import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerBaseURLs } from '../fixtures/model-server/family-routes.js';
import { type ChatStack, modelKey, searchKey, startChatStack } from './support/chat-stack.js';
import { collectChunks } from './support/sse-chunks.js';
import { startWebhookReceiver } from './support/webhook-receiver.js';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const citySchema = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } }, required: ['city', 'days'], additionalProperties: false };

/** Each provider on its wire protocol, and where its request says what JSON it wants. */
const providers: { provider: string; connection: (origin: string) => Record<string, unknown>; model: string; asked: (body: Body) => unknown }[] = [
  { provider: 'openai', connection: (origin) => ({ apiKey: modelKey, baseURL: `${origin}/v1` }), model: 'fixture-model', asked: (body) => body.text?.format?.schema },
  // @ai-sdk/anthropic asks natively (output_config.format) or through a forced `json` tool.
  { provider: 'anthropic', connection: (origin) => ({ apiKey: modelKey, baseURL: providerBaseURLs(origin).anthropic }), model: 'claude-sonnet-4-5', asked: (body) => body.output_config?.format?.schema ?? body.tools?.find((tool: Body) => tool.name === 'json')?.input_schema },
  // @ai-sdk/google asks with responseJsonSchema, or (with function tools, before Gemini 3) through a forced `json` function.
  {
    provider: 'google',
    connection: (origin) => ({ apiKey: modelKey, baseURL: providerBaseURLs(origin).google }),
    model: 'gemini-2.5-flash',
    asked: (body) => body.generationConfig?.responseJsonSchema ?? body.tools?.[0]?.functionDeclarations?.find((declaration: Body) => declaration.name === 'json')?.parametersJsonSchema,
  },
  { provider: 'openai-compatible', connection: (origin) => ({ apiKey: modelKey, baseURL: providerBaseURLs(origin)['openai-compatible'], name: 'local-vllm' }), model: 'qwen3-8b', asked: (body) => body.response_format?.json_schema?.schema ?? body.response_format },
];

interface StatusView {
  status: string;
  output?: unknown;
  error?: string;
  result?: { text: string };
}

describe('structured output (config.model.output and a request output)', () => {
  let stack: ChatStack;
  let secret: string;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const authorized = () => ({ authorization: `Bearer ${secret}`, 'content-type': 'application/json' });

  const agentConfig = (provider: (typeof providers)[number], output: Record<string, unknown>) => ({
    provider: { [provider.provider]: provider.connection(stack.model.origin) },
    model: { provider: provider.provider, id: provider.model, output },
    tools: { alphaSearch: { apiKey: searchKey, maxResults: 1 } },
  });
  const chat = async (agentId: string, body: Record<string, unknown>) => {
    const response = await stack.chat(secret, agentId, { conversationKey: 'k', ...body });
    return { status: response.status, body: (await response.json()) as Body };
  };
  const runAsync = async (agentId: string, body: Record<string, unknown>): Promise<{ eventId: string; view: StatusView }> => {
    const submitted = await fetch(`${stack.agentUrl}/agents/${agentId}/async`, { method: 'POST', headers: authorized(), body: JSON.stringify({ conversationKey: 'a', ...body }) });
    expect(submitted.status).toBe(202);
    const { eventId } = (await submitted.json()) as { eventId: string };
    for (;;) {
      await stack.core.asyncWorker.idle();
      const view = (await (await fetch(`${stack.agentUrl}/status/${eventId}`, { headers: authorized() })).json()) as StatusView;
      if (view.status === 'completed' || view.status === 'failed') return { eventId, view };
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  beforeAll(async () => {
    stack = await startChatStack();
    receiver = await startWebhookReceiver();
    secret = (await stack.createAccount('structured')).secret;
    for (const provider of providers) await stack.putAgent(secret, `object-${provider.provider}`, agentConfig(provider, { type: 'object', schema: citySchema, name: 'trip' }));
  });
  afterAll(async () => {
    await receiver.close();
    await stack.close();
  });

  it.each(providers)('object with a schema on $provider: asked natively, validated, on the JSON reply and the stored message', async (provider) => {
    const before = stack.model.callCount();
    const reply = await chat(`object-${provider.provider}`, { message: 'plan a trip' });
    expect(reply.status).toBe(200);
    expect(reply.body.status).toBe('completed');
    // The fake answers an example of the schema it was asked for.
    expect(reply.body.output).toEqual({ city: 'example', days: 1 });
    const call = stack.model.calls().slice(before)[0]!;
    expect(provider.asked(call.body as Body)).toMatchObject({ type: 'object', properties: { city: { type: 'string' } } });
    const conversation = (await (await fetch(`${stack.agentUrl}/agents/object-${provider.provider}/conversations/k`, { headers: authorized() })).json()) as { messages: Body[] };
    expect(conversation.messages.at(-1)).toMatchObject({ role: 'assistant', output: { city: 'example', days: 1 } });
  });

  it.each(providers)('array, choice and json on $provider', async (provider) => {
    await stack.putAgent(secret, `kinds-${provider.provider}`, agentConfig(provider, { type: 'array', elementSchema: citySchema }));
    expect((await chat(`kinds-${provider.provider}`, { message: 'json: {"elements":[{"city":"Oslo","days":2},{"city":"Rome","days":3}]}' })).body.output).toEqual([
      { city: 'Oslo', days: 2 },
      { city: 'Rome', days: 3 },
    ]);
    await stack.putAgent(secret, `kinds-${provider.provider}`, agentConfig(provider, { type: 'choice', options: ['yes', 'no'] }));
    expect((await chat(`kinds-${provider.provider}`, { message: 'json: {"result":"no"}' })).body.output).toBe('no');
    await stack.putAgent(secret, `kinds-${provider.provider}`, agentConfig(provider, { type: 'json' }));
    expect((await chat(`kinds-${provider.provider}`, { message: 'json: [1,"two",null]' })).body.output).toEqual([1, 'two', null]);
  });

  it('the stream sends one data-output part, before finish', async () => {
    const response = await stack.chat(secret, 'object-anthropic', { conversationKey: 'sse', message: 'json: {"city":"Lima","days":4}' }, 'text/event-stream');
    const chunks = await collectChunks(response);
    const outputs = chunks.filter((chunk) => chunk.type === 'data-output');
    expect(outputs).toEqual([{ type: 'data-output', data: { city: 'Lima', days: 4 } }]);
    expect(chunks.findIndex((chunk) => chunk.type === 'data-output')).toBe(chunks.length - 2);
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'completed' } });
  });

  it('/status has output, and the completion webhook carries it', async () => {
    await stack.putAgent(secret, 'hooked', { ...agentConfig(providers[2]!, { type: 'object', schema: citySchema }), webhooks: { completion: { url: receiver.url, secret: 'whsec-structured-0123456789' } } });
    const { eventId, view } = await runAsync('hooked', { message: 'json: {"city":"Quito","days":5}' });
    expect(view).toMatchObject({ status: 'completed', output: { city: 'Quito', days: 5 } });
    const [webhook] = await receiver.waitFor(1);
    expect(JSON.parse(webhook!.body)).toMatchObject({ eventId, status: 'completed', output: { city: 'Quito', days: 5 } });
  });

  it('a value that does not validate fails the turn with a clear reason (JSON 502, /status failed)', async () => {
    const reply = await chat('object-google', { message: 'json: {"wrong": true}' });
    expect(reply.status).toBe(502);
    expect(reply.body.error.message).toMatch(/structured output is invalid: the model's output does not match the schema: .*(city|additional)/);
    const { view } = await runAsync('object-openai-compatible', { message: 'json: {"wrong": true}' });
    expect(view.status).toBe('failed');
    expect(view.error).toContain('structured output is invalid');
    expect(view.output).toBeUndefined();
    const notJson = await chat('object-openai', { message: 'json: not json at all' });
    expect(notJson.body.error.message).toContain('is not JSON');
  });

  it('a tool call before the final output still works', async () => {
    const before = stack.model.callCount();
    const reply = await chat('object-openai', { conversationKey: 'tools', message: 'search: cats\nthen json: {"city":"Cat Town","days":9}' });
    expect(reply.body.status).toBe('completed');
    expect(reply.body.output).toEqual({ city: 'Cat Town', days: 9 });
    expect(stack.model.callCount() - before).toBe(2);
    expect(JSON.stringify(reply.body.messages)).toContain('alphaSearch');
  });

  it("a request's own output overrides config.model.output, for that turn only (chat and /async)", async () => {
    const before = stack.model.callCount();
    const reply = await chat('object-anthropic', { conversationKey: 'override', message: 'json: {"result":"maybe"}', output: { type: 'choice', options: ['yes', 'maybe'] } });
    expect(reply.body.output).toBe('maybe');
    expect(JSON.stringify(stack.model.calls().slice(before)[0]!.body)).toContain('maybe');
    const { view } = await runAsync('object-google', { message: 'json: [3]', output: { type: 'json', schema: { type: 'array', items: { type: 'integer' } } } });
    expect(view).toMatchObject({ status: 'completed', output: [3] });
    // The next turn runs with the agent's own output again.
    expect((await chat('object-anthropic', { conversationKey: 'override', message: 'again' })).body.output).toEqual({ city: 'example', days: 1 });
    const refused = await chat('object-anthropic', { message: 'x', output: { type: 'object' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe('output.schema is required when type is "object"');
  });

  it("a catastrophic pattern in the account's schema does not stall the service", async () => {
    const hostile = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } }, required: ['name'] };
    await stack.putAgent(secret, 'redos', agentConfig(providers[0]!, { type: 'object', schema: hostile }));
    // With a backtracking engine this check would run for longer than the test's timeout.
    const reply = await chat('redos', { message: `json: {"name":"${'a'.repeat(40_000)}!"}` });
    expect(reply.status).toBe(502);
    expect(reply.body.error.message).toContain('structured output is invalid');
  });

  it('a schema that does not compile is refused when the agent is put, naming the field', async () => {
    const response = await fetch(`${stack.accountUrl}/accounts/me/agents/bad-schema`, {
      method: 'PUT',
      headers: authorized(),
      body: JSON.stringify({ config: agentConfig(providers[0]!, { type: 'object', schema: { $ref: '#/nowhere' } }) }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('config.model.output.schema');
  });
});
