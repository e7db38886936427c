import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServices, createAccount, type TestServices } from '../../../test/support/test-services.js';
import { buildAgentService } from '../agent-service.js';
import { playgroundContentSecurityPolicy } from './playground-headers.js';
import { registerPlaygroundRoutes } from './playground-routes.js';
import { playgroundEnabled } from './playground-setting.js';
import type { PlaygroundAsset } from './playground-assets.js';

const assets = new Map<string, PlaygroundAsset>([
  ['index.html', { body: Buffer.from('<!doctype html><title>p</title>'), contentType: 'text/html; charset=utf-8' }],
  ['playground.js', { body: Buffer.from('export {};'), contentType: 'text/javascript; charset=utf-8' }],
]);

describe('the playground routes', () => {
  let services: TestServices;

  beforeAll(async () => {
    services = await startTestServices();
  });

  afterAll(async () => {
    await services.close();
  });

  it('is on by default for the local stage only, and HARNESS_PLAYGROUND decides otherwise', () => {
    expect(playgroundEnabled('local', {})).toBe(true);
    expect(playgroundEnabled('prod', {})).toBe(false);
    expect(playgroundEnabled('prod', { HARNESS_PLAYGROUND: 'on' })).toBe(true);
    expect(playgroundEnabled('local', { HARNESS_PLAYGROUND: 'off' })).toBe(false);
    expect(() => playgroundEnabled('local', { HARNESS_PLAYGROUND: 'maybe' })).toThrow(/HARNESS_PLAYGROUND/);
  });

  it('is a 404 when the setting is off', async () => {
    const app = buildAgentService({ core: services.core, playground: false });
    for (const url of ['/playground', '/playground/', '/playground/playground.js', '/playground/api/agents']) expect((await app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
    await app.close();
  });

  it('serves the page and its files with a strict Content-Security-Policy, and only known files', async () => {
    const app = buildAgentService({ core: services.core, playground: false });
    await app.register(async (scope) => registerPlaygroundRoutes(scope, services.core, { enabled: true, assets }));
    const page = await app.inject({ method: 'GET', url: '/playground' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toBe(playgroundContentSecurityPolicy);
    expect(playgroundContentSecurityPolicy).toContain("script-src 'self'");
    expect(playgroundContentSecurityPolicy).toContain("connect-src 'self'");
    expect(playgroundContentSecurityPolicy).not.toContain('unsafe');
    expect(page.headers['x-frame-options']).toBe('DENY');
    const script = await app.inject({ method: 'GET', url: '/playground/playground.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    for (const url of ['/playground/index.html', '/playground/..%2Fpackage.json', '/playground/nothing.js']) expect((await app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
    await app.close();
  });

  it('redirects /playground/ to /playground, keeping the query, and still serves the files under it', async () => {
    const app = buildAgentService({ core: services.core, playground: false });
    await app.register(async (scope) => registerPlaygroundRoutes(scope, services.core, { enabled: true, assets }));
    const slash = await app.inject({ method: 'GET', url: '/playground/' });
    expect(slash.statusCode).toBe(301);
    expect(slash.headers.location).toBe('/playground');
    expect((await app.inject({ method: 'GET', url: '/playground/?agent=demo' })).headers.location).toBe('/playground?agent=demo');
    expect((await app.inject({ method: 'GET', url: slash.headers.location as string })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/playground/playground.js' })).statusCode).toBe(200);
    await app.close();
  });

  it('says how to build the page when it is not built', async () => {
    const app = buildAgentService({ core: services.core, playground: false });
    await app.register(async (scope) => registerPlaygroundRoutes(scope, services.core, { enabled: true, assets: new Map() }));
    const page = await app.inject({ method: 'GET', url: '/playground' });
    expect(page.statusCode).toBe(404);
    expect(page.json()).toMatchObject({ error: { code: 'not_found', message: expect.stringContaining('npm run build') } });
    await app.close();
  });

  it("answers the page's API with the bearer only, and lists agents without their configs", async () => {
    const account = await createAccount(services.accountApp, 'playground-api');
    const app = buildAgentService({ core: services.core, playground: false });
    await app.register(async (scope) => registerPlaygroundRoutes(scope, services.core, { enabled: true, assets }));
    expect((await app.inject({ method: 'GET', url: '/playground/api/agents' })).statusCode).toBe(401);
    const answer = await app.inject({ method: 'GET', url: '/playground/api/agents', headers: { authorization: `Bearer ${account.secret}` } });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ agents: [] });
    const missing = await app.inject({ method: 'POST', url: '/playground/api/cron-jobs/nope/pause', headers: { authorization: `Bearer ${account.secret}` } });
    expect(missing.statusCode).toBe(404);
    await app.close();
  });
});
