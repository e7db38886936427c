import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testAdminSecret } from './support/test-services.js';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { startRecordingWorker } from './support/recording-worker.js';

/** Routes that do not take an account's bearer: account creation, probes, the OpenAPI document, admin, provider-signed webhooks. */
function takesAccountBearer(route: { method: string; url: string }): boolean {
  if (route.url === '/' || route.url === '/openapi.json' || route.url.startsWith('/admin/') || route.url.startsWith('/webhooks/')) return false;
  return !(route.method === 'POST' && route.url === '/accounts');
}

describe('auth matrix: every bearer-authenticated route', () => {
  let stack: ChatStack;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };
  const resources: Record<string, string> = {};
  let markers: string[];

  beforeAll(async () => {
    stack = await startChatStack();
    owner = await stack.createAccount('owner-account');
    other = await stack.createAccount('other-account');
    const worker = await startRecordingWorker();
    await stack.putAgent(owner.secret, 'private-agent', {
      system: 'OWNER-SYSTEM-PROMPT',
      provider: stack.provider(),
      tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: owner.secret, workerUrl: worker.dispatchUrl } },
      workspace: { notes: { path: 'notes', permissionMode: 'auto', sandbox: false } },
    });
    const chatResponse = await stack.chat(owner.secret, 'private-agent', { conversationKey: 'owner-conversation', message: 'call test_external_async {"task":"OWNER-TASK"}' });
    const answer = (await chatResponse.json()) as { eventId: string };
    if (worker.dispatches.length === 0) throw new Error(`setup: no dispatch (${chatResponse.status} ${JSON.stringify(answer)})`);
    await worker.close();
    Object.assign(resources, {
      agentId: 'private-agent',
      conversationKey: 'owner-conversation',
      eventId: answer.eventId,
      resultId: worker.dispatches[0]!.resultId,
      workspace: 'notes',
      server: 'owner-mcp',
      '*': 'readme.txt',
    });
    const cron = await fetch(`${stack.accountUrl}/accounts/me/cron-jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'OWNER-JOB', agentId: 'private-agent', conversationKey: 'owner-cron', prompt: 'OWNER-PROMPT', scheduleExpression: 'rate(1 hour)' }),
    });
    if (cron.status === 201) resources.cronJobId = ((await cron.json()) as { cronJobId: string }).cronJobId;
    markers = [owner.accountId, owner.secret, 'owner-account', 'OWNER-SYSTEM-PROMPT', 'OWNER-TASK', 'OWNER-JOB', 'OWNER-PROMPT'];
  });
  afterAll(async () => {
    await stack.close();
  });

  it('answers 401 without, with a bad, or with the admin bearer; 404 or the caller’s own data for another account’s bearer', async () => {
    const routes = [...stack.routes.account.map((route) => ({ ...route, base: stack.accountUrl })), ...stack.routes.agent.map((route) => ({ ...route, base: stack.agentUrl }))].filter(takesAccountBearer);
    expect(routes.length).toBeGreaterThan(12);
    const problems: string[] = [];
    let checked = 0;
    for (const route of routes) {
      const missing = [...route.url.matchAll(/:(\w+)|\*/g)].map((match) => match[1] ?? '*').filter((name) => !(name in resources));
      if (missing.length > 0) {
        problems.push(`${route.method} ${route.url}: the matrix has no owned resource for ${missing.join(', ')}`);
        continue;
      }
      const path = route.url.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(resources[name]!)).replace('*', resources['*']!);
      // Valid bodies where a route has one, so that ownership, not validation, decides the answer.
      const validBodies: Record<string, unknown> = {
        'PATCH /accounts/me/agents/:agentId': { config: {} },
        'PATCH /accounts/me/cron-jobs/:cronJobId': { name: 'renamed' },
        'POST /async-tools/:resultId/complete': { status: 'completed', response: {} },
      };
      const key = `${route.method} ${route.url}`;
      const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? JSON.stringify(validBodies[key] ?? {}) : undefined;
      for (const [label, authorization] of [
        ['no bearer', undefined],
        ['bad bearer', 'Bearer hsk_acc_00000000000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
        ['admin secret', `Bearer ${testAdminSecret}`],
        ['other account', `Bearer ${other.secret}`],
      ] as const) {
        const response = await fetch(`${route.base}${path}`, {
          method: route.method,
          headers: { ...(authorization ? { authorization } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body } : {}),
        });
        const text = await response.text();
        checked += 1;
        const where = `${route.method} ${route.url} with ${label}: ${response.status} ${text.slice(0, 120)}`;
        if (label !== 'other account') {
          if (response.status !== 401) problems.push(`expected 401, got ${where}`);
          continue;
        }
        const targetsOwnedResource = /:(\w+)/.test(route.url) && (['GET', 'DELETE', 'PATCH'].includes(route.method) || route.url.startsWith('/async-tools/'));
        if (targetsOwnedResource && response.status !== 404) problems.push(`expected 404, got ${where}`);
        if (response.status >= 500) problems.push(`5xx: ${where}`);
        for (const marker of markers) if (text.includes(marker)) problems.push(`reveals ${marker}: ${where}`);
      }
    }
    console.log(`auth matrix: ${routes.length} routes x 4 credentials = ${checked} requests, ${problems.length} problems`);
    expect(problems).toEqual([]);
    // The owner's resources are untouched by all of the above.
    const agent = await fetch(`${stack.accountUrl}/accounts/me/agents/private-agent`, { headers: { authorization: `Bearer ${owner.secret}` } });
    expect(agent.status).toBe(200);
  });
});
