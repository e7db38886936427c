import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../fixtures/listen.js';
import type { OutboundSettings } from '../server/core/outbound/outbound-settings.js';
import { startChannelsStack } from './support/channels-stack.js';
import { modelKey, startChatStack, type ChatStack } from './support/chat-stack.js';
import { startRecordingWorker } from './support/recording-worker.js';
import { waitUntil } from './support/wait-until.js';

/**
 * HARNESS_OUTBOUND_POLICY=public end to end: an account cannot point the service's own calls
 * (model, channel API, dispatch worker) at loopback, private or link-local addresses, whether
 * it writes a literal IP (400 at write time) or a name that resolves to one (refused when the
 * service connects, with no byte sent and nothing of the destination's answer shown).
 */
describe('outbound policy: public', () => {
  let stack: ChatStack;
  let secret: string;
  let internal: Server;
  let internalPort: number;
  let internalHits = 0;

  beforeAll(async () => {
    const outbound: OutboundSettings = { mode: 'public', allow: [] };
    stack = await startChatStack({ outbound });
    // The operator allows its own model gateway (the fixture model, whose port is known only
    // once it listens): HARNESS_OUTBOUND_ALLOW=127.0.0.1:<port>.
    outbound.allow.push({ address: '127.0.0.1', port: Number(new URL(stack.model.baseURL).port) });
    await stack.restart();
    secret = (await stack.createAccount('outbound')).secret;
    // A service inside the network that would answer with something private.
    internal = createServer((_request, response) => {
      internalHits += 1;
      response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"INTERNAL-ONLY detail from inside"}}');
    });
    internalPort = Number(new URL(await listen(internal)).port);
  });
  afterAll(async () => {
    await stack.close();
    await new Promise((resolve) => internal.close(resolve));
  });

  const put = (agentId: string, config: Record<string, unknown>) =>
    fetch(`${stack.accountUrl}/accounts/me/agents/${agentId}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ config }),
    });

  it.each([
    ['config.provider.openai.baseURL', { provider: { openai: { apiKey: modelKey, model: 'm', baseURL: 'http://127.0.0.1:4000/v1' } } }, 'loopback'],
    ['config.channels.telegram.apiBaseUrl', { channels: { telegram: { botToken: 'b-0123456789abcdef', secretToken: 's-0123456789abcdef', apiBaseUrl: 'http://10.1.2.3/' } } }, 'private'],
    ['config.tools.test_external_async.workerUrl', { tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: 'https://example.com', completionBearerToken: 't', workerUrl: 'http://169.254.169.254/latest/meta-data' } } }, 'link-local'],
    ['config.provider.openai.baseURL', { provider: { openai: { apiKey: modelKey, model: 'm', baseURL: 'http://[::ffff:100.64.0.1]/v1' } } }, 'carrier-grade NAT'],
  ])('refuses %s at a non-public literal IP when the config is written', async (field, config, kind) => {
    const response = await put('refused', config);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toMatch(new RegExp(`^${field.replaceAll('.', '\\.')} points at .*, a ${kind} address; this service only calls public addresses for accounts`));
  });

  it('refuses at connect time a model baseURL whose name resolves to loopback: 502 with a clear reason, and no request and none of its body', async () => {
    expect((await put('named', { provider: { openai: { apiKey: modelKey, model: 'fixture-model', baseURL: `http://localhost:${internalPort}/v1`, api: 'chat' } } })).status).toBe(201);
    const response = await stack.chat(secret, 'named', { conversationKey: 'k', message: 'hello' });
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('upstream_error');
    expect(body.error.message).toMatch(/outbound call refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(body.error.message).not.toContain('INTERNAL-ONLY');
    expect(internalHits).toBe(0);
    expect(stack.model.callCount()).toBe(0);
  });

  it('an account-chosen workerUrl that resolves to loopback is never called; the tool fails and the turn goes on', async () => {
    const worker = await startRecordingWorker();
    try {
      const workerUrl = worker.dispatchUrl.replace('127.0.0.1', 'localhost');
      const tools = { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: secret, workerUrl } };
      expect((await put('dispatch', { provider: stack.provider('chat'), tools })).status).toBe(201);
      const response = await stack.chat(secret, 'dispatch', { conversationKey: 'k', message: 'call test_external_async {"task":"x"}' });
      expect(response.status).toBe(200);
      await response.text();
      await stack.core.asyncWorker.idle();
      expect(worker.dispatches).toEqual([]);
      const stored = JSON.stringify((await stack.core.conversations.find((await stack.core.accounts.authenticate(secret)).accountId, 'dispatch', 'k'))?.messages);
      expect(stored).toMatch(/test_external_async: outbound call refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    } finally {
      await worker.close();
    }
  });

  it('a channel apiBaseUrl that resolves to loopback gets no reply: the delivery is recorded as failed', async () => {
    const channels = await startChannelsStack({ outbound: { mode: 'public', allow: [] } });
    try {
      const owner = await channels.createAccount('channel-owner');
      const telegram = { botToken: '123456:telegram-bot-token-abc', secretToken: 'telegram-secret-token-0123', apiBaseUrl: channels.apis.baseURL('telegram').replace('127.0.0.1', 'localhost') };
      // The model is refused too (it is on loopback), so the channel gets the apology: also not sent.
      expect((await channels.putAgent(owner.secret, 'bot', { channels: { telegram } })).status).toBe(201);
      const update = JSON.stringify({ update_id: 1, message: { message_id: 1, from: { id: 7, is_bot: false }, chat: { id: 77 }, text: 'hi' } });
      const webhook = await channels.webhook({ accountId: owner.accountId, agentId: 'bot', provider: 'telegram' }, update, { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': telegram.secretToken });
      expect(webhook.status).toBe(200);
      await channels.idle();
      expect(channels.apis.received('telegram')).toEqual([]);
      expect(await channels.core.channels.deliveries.all()).toMatchObject([{ status: 'failed' }]);
    } finally {
      await channels.close();
    }
  });
});

/**
 * HARNESS_OUTBOUND_ALLOW_MODEL: the operator's model gateway is an exception for model calls
 * only. An account cannot aim an MCP server (any path, any headers) or a completion webhook at
 * it: refused at write time for a literal IP, and when connecting for a name.
 */
describe('outbound policy: exceptions per kind of destination', () => {
  let stack: ChatStack;
  let secret: string;
  let gateway: URL;

  beforeAll(async () => {
    const outbound: OutboundSettings = { mode: 'public', allow: [], allowByKind: {} };
    stack = await startChatStack({ outbound });
    gateway = new URL(stack.model.baseURL);
    outbound.allowByKind = { model: [{ address: '127.0.0.1', port: Number(gateway.port) }] };
    await stack.restart();
    secret = (await stack.createAccount('kinds')).secret;
  });
  afterAll(async () => {
    await stack.close();
  });

  const put = (agentId: string, config: Record<string, unknown>) =>
    fetch(`${stack.accountUrl}/accounts/me/agents/${agentId}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ config }),
    });
  const gatewayPaths = () => stack.model.calls().map((call) => call.endpoint);

  it('lets the model call reach the gateway', async () => {
    expect((await put('model', { provider: stack.provider('chat') })).status).toBe(201);
    const response = await stack.chat(secret, 'model', { conversationKey: 'k', message: 'hello' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { text: string }).text).toBe('Echo: hello');
  });

  it.each([
    ['config.mcp.gateway.url', { mcp: { gateway: { url: `http://127.0.0.1:PORT/v1/chat/completions` } } }],
    ['config.webhooks.completion.url', { webhooks: { completion: { url: `http://127.0.0.1:PORT/hook`, secret: 'webhook-secret-0123456789' } } }],
  ])('refuses %s at the gateway address when the config is written', async (field, config) => {
    const response = await put('aimed', JSON.parse(JSON.stringify(config).replace('PORT', gateway.port)) as Record<string, unknown>);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(new RegExp(`^${field.replaceAll('.', '\\.')} points at 127\\.0\\.0\\.1, a loopback address`));
  });

  it('refuses at connect time an MCP server whose name resolves to the gateway: the turn goes on without it, nothing reaches the gateway', async () => {
    stack.model.resetCalls();
    const mcp = { gateway: { url: `http://localhost:${gateway.port}/mcp`, headers: { Authorization: 'Bearer stolen' } } };
    expect((await put('mcp-by-name', { provider: stack.provider('chat'), mcp })).status).toBe(201);
    const response = await stack.chat(secret, 'mcp-by-name', { conversationKey: 'k', message: 'hello' });
    expect(response.status).toBe(200);
    const listing = stack.logs.find((log) => log.fields.event === 'mcp-tools' && log.fields.agentId === 'mcp-by-name');
    expect(String(listing?.fields.error)).toMatch(/outbound call refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(gatewayPaths()).toEqual(['/v1/chat/completions']);
  });

  it('refuses at connect time a completion webhook whose name resolves to the gateway', async () => {
    const webhooks = { completion: { url: `http://localhost:${gateway.port}/hook`, secret: 'webhook-secret-0123456789' } };
    expect((await put('hook-by-name', { provider: stack.provider('chat'), webhooks })).status).toBe(201);
    stack.model.resetCalls();
    const started = await fetch(`${stack.agentUrl}/agents/hook-by-name/async`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ conversationKey: 'k', message: 'hello' }),
    });
    expect(started.status).toBe(202);
    const attempt = await waitUntil('a refused webhook attempt', async () => {
      const listed = (await (await fetch(`${stack.agentUrl}/agents/hook-by-name/webhook-deliveries`, { headers: { authorization: `Bearer ${secret}` } })).json()) as {
        deliveries: { attempts: { error?: string }[] }[];
      };
      return listed.deliveries.flatMap((delivery) => delivery.attempts).find((found) => found.error !== undefined);
    });
    expect(attempt.error).toMatch(/outbound call refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(gatewayPaths()).toEqual(['/v1/chat/completions']);
  });
});
