import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureModel, type FixtureModelServer } from '../fixtures/model-server/fixture-model-server.js';
import { bearer, createAccount, startTestServices, testAdminSecret, type TestServices } from './support/test-services.js';

/** A small deterministic PRNG (mulberry32), so a failing case can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const errorCodes = new Set(['invalid_request', 'unauthorized', 'not_found', 'conflict', 'payload_too_large', 'unsupported_media_type', 'rate_limited', 'upstream_error']);

const oddStrings = [
  '',
  ' ',
  '../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e%2f%2e%2e%2f',
  '/absolute/path',
  'a'.repeat(5000),
  '\u0000nul',
  '\ud800lone-surrogate',
  'emoji-😀-ü-日本',
  'RTL-\u202e-override',
  '__proto__',
  'constructor',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '${jndi:ldap://x}',
  'CON',
  '%00',
  '\n\r\t',
  'fuzz',
];

const oddValues: unknown[] = [null, true, false, 0, -1, 1.5, 1e300, -0, Number.MAX_SAFE_INTEGER, [], [1, 2], {}, { nested: { deeper: [null] } }, ...oddStrings];

/** Percent-encode, keeping lone surrogates as their raw UTF-8 replacement rather than throwing. */
function encodeSegment(value: string): string {
  return encodeURIComponent(value.replace(/[\ud800-\udfff]/g, '\ufffd'));
}

function deepNesting(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

describe('fuzzing every route with malformed requests', () => {
  let services: TestServices;
  let model: FixtureModelServer;
  let secret: string;
  let otherSecret: string;
  const modelKey = 'sk-fuzz-model-key-0123456789';

  beforeAll(async () => {
    model = await startFixtureModel({ apiKey: modelKey });
    services = await startTestServices();
    secret = (await createAccount(services.accountApp, 'fuzzer')).secret;
    otherSecret = (await createAccount(services.accountApp, 'bystander')).secret;
    await services.accountApp.inject({
      method: 'PUT',
      url: '/accounts/me/agents/fuzz',
      headers: bearer(secret),
      payload: { config: { provider: { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } }, tools: { test_async: { durationMs: 0 } } } },
    });
    await services.accountApp.ready();
    await services.agentApp.ready();
  });
  afterAll(async () => {
    await services.close();
    await model.close();
  });

  it('answers 10,000+ malformed requests without a 5xx or a crash, every error in the contract shape', async () => {
    const next = random(20261122);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const apps: [string, FastifyInstance][] = [
      ['account', services.accountApp],
      ['agent', services.agentApp],
    ];
    const routes = apps.flatMap(([name, app]) => app.routeCatalog.map((route) => ({ ...route, name, app })));
    expect(routes.length).toBeGreaterThan(15);
    const failures: string[] = [];
    let sent = 0;
    const perRoute = Math.ceil(10_200 / routes.length);
    for (const route of routes) {
      for (let index = 0; index < perRoute; index += 1) {
        const url = route.url
          .replace(/:(\w+)/g, () => encodeSegment(next() < 0.3 ? 'fuzz' : pick(oddStrings)))
          .replace('*', () => (next() < 0.5 ? 'notes.txt' : pick(oddStrings).replace(/\//g, '%2F')));
        const kind = Math.floor(next() * 10);
        let payload: string | undefined;
        let contentType: string | undefined = 'application/json';
        if (kind === 0) payload = '{"unterminated": ';
        else if (kind === 1) payload = deepNesting(1 + Math.floor(next() * 5000));
        else if (kind === 2) payload = JSON.stringify({ huge: 'x'.repeat(1_100_000) });
        else if (kind === 3) {
          payload = 'plain text body';
          contentType = pick(['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/octet-stream']);
        } else if (kind === 4) payload = JSON.stringify(pick(oddValues));
        else if (kind === 5) {
          payload = '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}';
        } else if (kind === 6) {
          const body: Record<string, unknown> = {};
          for (const field of ['username', 'description', 'config', 'conversationKey', 'message', 'status', 'response', 'error', 'name', 'agentId', 'prompt', 'scheduleExpression', 'timezone', 'disabled', 'id', 'messages']) {
            if (next() < 0.5) body[field] = pick(oddValues);
          }
          payload = JSON.stringify(body);
        } else if (kind === 7) {
          payload = JSON.stringify({ config: { tools: { [pick(['alphaSearch', 'bash', 'test_external_async', 'nope', '__proto__'])]: pick(oddValues) }, provider: pick(oddValues), workspace: pick(oddValues), channels: pick(oddValues) } });
        } else if (kind === 8) {
          payload = JSON.stringify({ conversationKey: pick(oddStrings), message: { role: pick(['user', 'tool', 'system', 'assistant']), content: pick(oddValues) } });
        } else {
          payload = undefined;
          contentType = next() < 0.5 ? undefined : 'application/json';
        }
        const auth = pick(['mine', 'mine', 'mine', 'none', 'bad', 'other', 'admin'] as const);
        const headers: Record<string, string> = {};
        if (contentType) headers['content-type'] = contentType;
        if (auth === 'mine') Object.assign(headers, bearer(secret));
        if (auth === 'bad') headers.authorization = `Bearer ${pick(oddStrings).replace(/[^\x20-\x7e]/g, 'x')}`;
        if (auth === 'other') Object.assign(headers, bearer(otherSecret));
        if (auth === 'admin') Object.assign(headers, bearer(testAdminSecret));
        let response: LightMyRequestResponse;
        try {
          response = await route.app.inject({ method: route.method as 'GET', url, headers, ...(payload !== undefined && route.method !== 'GET' ? { payload } : {}) });
        } catch (error) {
          failures.push(`${route.method} ${url}: inject threw ${(error as Error).message}`);
          continue;
        }
        sent += 1;
        const describe = `${route.method} ${url.slice(0, 80)} [${contentType ?? 'none'}] ${payload?.slice(0, 60) ?? ''} → ${response.statusCode} ${response.body.slice(0, 200)}`;
        if (response.statusCode >= 500 && !(response.statusCode === 502 && response.body.includes('upstream_error'))) failures.push(describe);
        if (response.statusCode >= 400) {
          let body: { error?: { code?: unknown; message?: unknown } } | undefined;
          try {
            body = response.json();
          } catch {
            failures.push(`not JSON: ${describe}`);
            continue;
          }
          if (typeof body?.error?.message !== 'string' || !errorCodes.has(String(body?.error?.code))) failures.push(`bad error shape: ${describe}`);
        }
      }
    }
    console.log(`fuzz: ${sent} malformed requests over ${routes.length} routes, ${failures.length} failures`);
    expect(failures.slice(0, 20)).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(10_000);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    for (const [, app] of apps) expect((await app.inject({ method: 'GET', url: '/' })).statusCode).toBe(200);
  }, 300_000);
});
