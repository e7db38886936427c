import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../../../fixtures/listen.js';
import { createModelFetch } from '../model/model-fetch.js';
import { OutboundDestinationRefusedError, OutboundPolicy } from './outbound-policy.js';
import { outboundSettingsFromEnvironment } from './outbound-settings.js';

interface TestServer {
  origin: string;
  port: number;
  /** Requests that reached it. */
  hits: string[];
}

const servers: Server[] = [];
const policies: OutboundPolicy[] = [];
afterEach(async () => {
  await Promise.all(policies.splice(0).map((policy) => policy.close()));
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function startServer(answer: (path: string) => { status: number; headers?: Record<string, string>; body: string }): Promise<TestServer> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(request.url ?? '');
    const { status, headers, body } = answer(request.url ?? '');
    response.writeHead(status, headers).end(body);
  });
  servers.push(server);
  const origin = await listen(server);
  return { origin, port: Number(new URL(origin).port), hits };
}

function policy(...args: ConstructorParameters<typeof OutboundPolicy>): OutboundPolicy {
  const created = new OutboundPolicy(...args);
  policies.push(created);
  return created;
}

/** The refusal a fetch failed with (undici wraps connect errors as the cause of "fetch failed"). */
async function refusal(call: Promise<unknown>): Promise<Error> {
  const error = (await call.then(
    () => undefined,
    (failure: unknown) => failure,
  )) as (Error & { cause?: Error }) | undefined;
  expect(error).toBeDefined();
  return error!.cause ?? error!;
}

describe('OutboundPolicy under any', () => {
  it('reaches loopback (npm start and the tests rely on it) and refuses nothing at config time', async () => {
    const target = await startServer(() => ({ status: 200, body: 'ok' }));
    const any = policy({ mode: 'any', allow: [] });
    expect(await (await any.fetch(`${target.origin}/x`)).text()).toBe('ok');
    expect(() => any.checkUrl('http://127.0.0.1:1/v1', 'config.provider.openai.baseURL', 'model')).not.toThrow();
    expect(any.dispatcher).toBeUndefined();
  });
});

describe('OutboundPolicy under public', () => {
  it('refuses a literal loopback, private or link-local IP at config time, naming the field', () => {
    const outbound = policy({ mode: 'public', allow: [] });
    expect(() => outbound.checkUrl('http://127.0.0.1:8080/v1', 'config.provider.openai.baseURL', 'model')).toThrow(
      'config.provider.openai.baseURL points at 127.0.0.1, a loopback address; this service only calls public addresses for accounts (HARNESS_OUTBOUND_POLICY=public)',
    );
    expect(() => outbound.checkUrl('http://169.254.169.254/latest/meta-data', 'config.tools.test_external_async.workerUrl', 'workers')).toThrow('a link-local address');
    expect(() => outbound.checkUrl('https://[::ffff:10.0.0.1]/', 'config.channels.slack.apiBaseUrl', 'channels')).toThrow('a private address');
    expect(() => outbound.checkUrl('https://[fd00::1]:8443/', 'x', 'model')).toThrow('a unique-local address');
    expect(() => outbound.checkUrl('https://api.openai.com/v1', 'x', 'model')).not.toThrow();
    // A name is checked when connecting: DNS may say something else then.
    expect(() => outbound.checkUrl('http://localhost:1/v1', 'x', 'model')).not.toThrow();
  });

  it('refuses to connect to a literal loopback address: nothing reaches the server', async () => {
    const target = await startServer(() => ({ status: 200, body: 'secret internal answer' }));
    const error = await refusal(policy({ mode: 'public', allow: [] }).fetch(`${target.origin}/x`));
    expect(error).toBeInstanceOf(OutboundDestinationRefusedError);
    expect(error.message).toBe('outbound call refused: 127.0.0.1 is a loopback address, and this service only calls public addresses for accounts (HARNESS_OUTBOUND_POLICY=public)');
    expect(target.hits).toEqual([]);
  });

  it('re-checks after DNS: localhost resolves to loopback and is refused', async () => {
    const target = await startServer(() => ({ status: 200, body: 'ok' }));
    const error = await refusal(policy({ mode: 'public', allow: [] }).fetch(`http://localhost:${target.port}/x`));
    expect(error.message).toMatch(/^outbound call refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(target.hits).toEqual([]);
  });

  it('refuses a name when any of its addresses is not public (a mixed or rebinding answer)', async () => {
    const answers: Record<string, string[]> = { 'mixed.example': ['93.184.216.34', '10.0.0.7'], 'metadata.example': ['169.254.169.254'], 'mapped.example': ['::ffff:127.0.0.1'] };
    const outbound = policy({ mode: 'public', allow: [] }, async (host) => answers[host] ?? []);
    expect((await refusal(outbound.fetch('http://mixed.example/'))).message).toContain('mixed.example resolves to 10.0.0.7, a private address');
    expect((await refusal(outbound.fetch('http://metadata.example/latest'))).message).toContain('a link-local address');
    expect((await refusal(outbound.fetch('https://mapped.example/'))).message).toContain('a loopback address');
  });

  it('checks every redirect: an allowed host that redirects to loopback reaches nothing', async () => {
    const inside = await startServer(() => ({ status: 200, body: 'internal secret' }));
    const bouncer = await startServer((path) => ({ status: 302, headers: { location: path === '/by-name' ? `http://localhost:${inside.port}/` : `${inside.origin}/` }, body: '' }));
    const outbound = policy({ mode: 'public', allow: [{ address: '127.0.0.1', port: bouncer.port }] });
    for (const path of ['/by-address', '/by-name']) {
      const error = await refusal(outbound.fetch(`${bouncer.origin}${path}`));
      expect(error).toBeInstanceOf(OutboundDestinationRefusedError);
    }
    expect(bouncer.hits).toEqual(['/by-address', '/by-name']);
    expect(inside.hits).toEqual([]);
  });

  it('lets the operator allow one internal destination (address and port), and only that one', async () => {
    const gateway = await startServer(() => ({ status: 200, body: 'gateway' }));
    const other = await startServer(() => ({ status: 200, body: 'other' }));
    const outbound = policy({ mode: 'public', allow: [{ address: '127.0.0.1', port: gateway.port }] });
    expect(await (await outbound.fetch(`${gateway.origin}/`)).text()).toBe('gateway');
    expect(() => outbound.checkUrl(`${gateway.origin}/v1`, 'x', 'model')).not.toThrow();
    await refusal(outbound.fetch(`${other.origin}/`));
    expect(other.hits).toEqual([]);
  });

  it("applies to the model client's fetch (undici request) as well", async () => {
    const model = await startServer(() => ({ status: 500, body: '{"error":{"message":"internal detail"}}' }));
    const outbound = policy({ mode: 'public', allow: [] });
    const modelFetch = createModelFetch({ dispatcher: outbound.dispatcherFor('model') });
    const error = await refusal(modelFetch(`http://localhost:${model.port}/v1/responses`, { method: 'POST', body: '{}' }));
    expect(error).toBeInstanceOf(OutboundDestinationRefusedError);
    expect(model.hits).toEqual([]);
  });
});

describe('OutboundPolicy exceptions per kind of destination', () => {
  it('lets a gateway allowed for model only be reached by the model client, and by no MCP server, webhook, channel or worker', async () => {
    const gateway = await startServer(() => ({ status: 200, body: 'gateway' }));
    const allowed = [{ address: '127.0.0.1', port: gateway.port }];
    // A name resolving to the gateway: what an account would use to get past the config-time check.
    const outbound = policy({ mode: 'public', allow: [], allowByKind: { model: allowed } }, async (host) => (host === 'gateway.example' ? ['127.0.0.1'] : []));
    expect(() => outbound.checkUrl(`${gateway.origin}/v1`, 'config.provider.openai.baseURL', 'model')).not.toThrow();
    expect(() => outbound.checkUrl(`${gateway.origin}/mcp`, 'config.mcp.internal.url', 'mcp')).toThrow('config.mcp.internal.url points at 127.0.0.1, a loopback address');
    expect(() => outbound.checkUrl(`${gateway.origin}/hook`, 'config.webhooks.completion.url', 'webhooks')).toThrow('config.webhooks.completion.url points at 127.0.0.1');
    const byName = `http://gateway.example:${gateway.port}`;
    const modelFetch = createModelFetch({ dispatcher: outbound.dispatcherFor('model') });
    expect(await (await modelFetch(`${byName}/v1/responses`, { method: 'POST', body: '{}' })).text()).toBe('gateway');
    expect(await (await outbound.fetchFor('model')(`${byName}/v1/models`)).text()).toBe('gateway');
    const mcp = outbound.createOwnFetch('mcp');
    try {
      for (const call of [mcp.fetch(`${byName}/mcp`), outbound.fetchFor('mcp')(`${byName}/mcp`), outbound.fetchFor('webhooks')(`${byName}/hook`), outbound.fetchFor('channels')(`${byName}/bot`), outbound.fetchFor('workers')(`${byName}/dispatch`), outbound.fetch(`${byName}/any`)]) {
        expect(await refusal(call)).toBeInstanceOf(OutboundDestinationRefusedError);
      }
    } finally {
      await mcp.destroy();
    }
    expect(gateway.hits).toEqual(['/v1/responses', '/v1/models']);
  });

  it('keeps HARNESS_OUTBOUND_ALLOW meaning every kind', async () => {
    const gateway = await startServer(() => ({ status: 200, body: 'gateway' }));
    const outbound = policy({ mode: 'public', allow: [{ address: '127.0.0.1', port: gateway.port }], allowByKind: {} });
    for (const kind of ['model', 'mcp', 'webhooks', 'channels', 'workers'] as const) {
      expect(() => outbound.checkUrl(`${gateway.origin}/`, 'x', kind)).not.toThrow();
      expect(await (await outbound.fetchFor(kind)(`${gateway.origin}/${kind}`)).text()).toBe('gateway');
    }
  });
});

describe('outboundSettingsFromEnvironment', () => {
  it('defaults to any, reads public and the allow list, and refuses bad values naming the variable', () => {
    expect(outboundSettingsFromEnvironment({})).toEqual({ mode: 'any', allow: [], allowByKind: {} });
    expect(outboundSettingsFromEnvironment({ HARNESS_OUTBOUND_POLICY: 'public', HARNESS_OUTBOUND_ALLOW: '10.0.0.5:8080, 192.168.1.9, [fd00::1]:443, ::1' })).toEqual({
      mode: 'public',
      allow: [{ address: '10.0.0.5', port: 8080 }, { address: '192.168.1.9' }, { address: 'fd00::1', port: 443 }, { address: '::1' }],
      allowByKind: {},
    });
    expect(outboundSettingsFromEnvironment({ HARNESS_OUTBOUND_POLICY: 'public', HARNESS_OUTBOUND_ALLOW_MODEL: '10.0.0.5:8080', HARNESS_OUTBOUND_ALLOW_WORKERS: '10.0.0.6' }).allowByKind).toEqual({
      model: [{ address: '10.0.0.5', port: 8080 }],
      workers: [{ address: '10.0.0.6' }],
    });
    expect(() => outboundSettingsFromEnvironment({ HARNESS_OUTBOUND_ALLOW_MCP: 'gateway' })).toThrow('HARNESS_OUTBOUND_ALLOW_MCP entries must be');
    expect(() => outboundSettingsFromEnvironment({ HARNESS_OUTBOUND_POLICY: 'private' })).toThrow('HARNESS_OUTBOUND_POLICY must be "any" or "public"');
    expect(() => outboundSettingsFromEnvironment({ HARNESS_OUTBOUND_ALLOW: 'internal.example:80' })).toThrow('HARNESS_OUTBOUND_ALLOW entries must be');
    expect(() => outboundSettingsFromEnvironment({ HARNESS_OUTBOUND_ALLOW: '10.0.0.5:99999' })).toThrow('HARNESS_OUTBOUND_ALLOW');
  });
});
