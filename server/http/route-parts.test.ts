import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HarnessCore } from '../core/composition/harness-core.js';
import { bearer, createAccount, startTestServices, testAdminSecret, type TestServices } from '../../test/support/test-services.js';
import { createApp } from './create-app.js';
import { registerAccountRoutes } from './routes/account-routes.js';
import { registerAdminRoutes } from './routes/admin-routes.js';
import { registerAgentConfigRoutes } from './routes/agent-config-routes.js';
import { registerAsyncRoutes } from './routes/async-routes.js';
import { registerCancelRoutes } from './routes/cancel-routes.js';
import { registerCompactionRoutes } from './routes/compaction-routes.js';
import { registerChatRoutes } from './routes/chat-routes.js';
import { registerCronJobRoutes } from './routes/cron-job-routes.js';
import { registerMcpRoutes } from './routes/mcp-routes.js';
import { registerMcpServerToolsRoutes } from './routes/mcp-server-tools-routes.js';
import { registerNatsCredentialsRoutes } from './routes/nats-credentials-routes.js';
import { registerStreamRoutes } from './routes/stream-routes.js';
import { registerWebhookDeliveryRoutes } from './routes/webhook-delivery-routes.js';
import { registerWebhookRoutes } from './routes/webhook-routes.js';
import { registerWorkspaceRoutes } from './routes/workspace-routes.js';
import { registerPlaygroundRoutes } from './playground/playground-routes.js';

/**
 * Each route registration is given only the members of the core its type names (a new object
 * holding those, nothing else). That it compiles shows the signatures ask for no more; that the
 * requests are answered as through the full services shows the routes reach for nothing else
 * (a member they lacked would be a TypeError, a 500).
 */
function partsOf<Name extends keyof HarnessCore>(core: HarnessCore, names: readonly Name[]): Pick<HarnessCore, Name> {
  return Object.fromEntries(names.map((name) => [name, core[name]])) as Pick<HarnessCore, Name>;
}

const agentConfig = { system: 'You are helpful.', provider: { openai: { apiKey: 'sk-route-parts-0001', model: 'fixture-model' } } };

describe('each route given only its parts of the core', () => {
  let services: TestServices;
  let core: HarnessCore;
  let authorized: { authorization: string };
  let accountId: string;
  const apps: FastifyInstance[] = [];

  function appWith(register: (app: FastifyInstance) => void): FastifyInstance {
    const app = createApp({}, { title: 'route parts', description: 'one registration' }, register);
    apps.push(app);
    return app;
  }

  beforeAll(async () => {
    services = await startTestServices();
    core = services.core;
    const account = await createAccount(services.accountApp, 'parts');
    accountId = account.accountId;
    authorized = bearer(account.secret);
    const agent = await services.accountApp.inject({ method: 'PUT', url: '/accounts/me/agents/helper', headers: authorized, payload: { config: agentConfig } });
    expect(agent.statusCode).toBe(201);
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await services.close();
  });

  it('account, admin and agent config routes', async () => {
    const accounts = appWith((app) => registerAccountRoutes(app, partsOf(core, ['accounts', 'usage'])));
    const me = await accounts.inject({ method: 'GET', url: '/accounts/me', headers: authorized });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ accountId, username: 'parts' });
    expect((await accounts.inject({ method: 'GET', url: '/accounts/me/usage', headers: authorized })).statusCode).toBe(200);

    const admin = appWith((app) => registerAdminRoutes(app, partsOf(core, ['accounts'])));
    const everyAccount = await admin.inject({ method: 'GET', url: '/admin/accounts', headers: bearer(testAdminSecret) });
    expect(everyAccount.json<{ accounts: { accountId: string }[] }>().accounts.map((account) => account.accountId)).toContain(accountId);
    expect((await admin.inject({ method: 'GET', url: '/admin/accounts', headers: authorized })).statusCode).toBe(401);

    const agents = appWith((app) => registerAgentConfigRoutes(app, partsOf(core, ['accounts', 'agents'])));
    expect((await agents.inject({ method: 'PUT', url: '/accounts/me/agents/second', headers: authorized, payload: { config: agentConfig } })).statusCode).toBe(201);
    const listed = await agents.inject({ method: 'GET', url: '/accounts/me/agents', headers: authorized });
    expect(listed.json<{ agents: { agentId: string }[] }>().agents.map((agent) => agent.agentId)).toContain('second');
  });

  it('workspace, cron job and NATS credentials routes', async () => {
    const workspaces = appWith((app) => registerWorkspaceRoutes(app, partsOf(core, ['accounts', 'workspaceFiles'])));
    const noWorkspace = await workspaces.inject({ method: 'GET', url: '/accounts/me/agents/helper/workspaces/notes/files', headers: authorized });
    expect(noWorkspace.statusCode).toBe(404);
    expect(noWorkspace.json()).toMatchObject({ error: { code: 'not_found' } });

    const cronJobs = appWith((app) => registerCronJobRoutes(app, partsOf(core, ['accounts', 'cronJobs', 'idempotency'])));
    const job = { name: 'daily', agentId: 'helper', conversationKey: 'daily', prompt: 'Say hi.', scheduleExpression: 'rate(1 day)' };
    const created = await cronJobs.inject({ method: 'POST', url: '/accounts/me/cron-jobs', headers: { ...authorized, 'idempotency-key': 'parts-1' }, payload: job });
    expect(created.statusCode).toBe(201);
    const retried = await cronJobs.inject({ method: 'POST', url: '/accounts/me/cron-jobs', headers: { ...authorized, 'idempotency-key': 'parts-1' }, payload: job });
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(retried.json()).toEqual(created.json());
    expect((await cronJobs.inject({ method: 'GET', url: '/accounts/me/cron-jobs', headers: authorized })).json<{ cronJobs: unknown[] }>().cronJobs).toHaveLength(1);

    const nats = appWith((app) => registerNatsCredentialsRoutes(app, partsOf(core, ['accounts']), undefined));
    expect((await nats.inject({ method: 'GET', url: '/accounts/me/nats', headers: authorized })).statusCode).toBe(404);
  });

  it('chat, stream, async and cancel routes', async () => {
    const chat = appWith((app) =>
      registerChatRoutes(app, partsOf(core, ['accounts', 'rateLimiters', 'idempotency', 'chunkLog', 'runningTurns', 'resumeAdmission', 'turns', 'agents', 'conversations']), { enableDirectApi: true }),
    );
    const badBody = await chat.inject({ method: 'POST', url: '/agents/helper/chat', headers: { ...authorized, 'idempotency-key': 'parts-2' }, payload: { conversationKey: 'c1' } });
    expect(badBody.statusCode).toBe(400);
    expect(badBody.json()).toMatchObject({ error: { code: 'invalid_request' } });
    expect((await chat.inject({ method: 'GET', url: '/agents/helper/conversations/c1', headers: authorized })).statusCode).toBe(404);

    const streams = appWith((app) => registerStreamRoutes(app, partsOf(core, ['accounts', 'agents', 'chunkLog', 'runningTurns', 'resumeAdmission'])));
    expect((await streams.inject({ method: 'GET', url: '/agents/helper/conversations/c1/stream', headers: authorized })).statusCode).toBe(204);

    const asyncRoutes = appWith((app) => registerAsyncRoutes(app, partsOf(core, ['accounts', 'rateLimiters', 'idempotency', 'turns', 'usage', 'asyncRequests', 'asyncCompletions'])));
    const unknownAgent = await asyncRoutes.inject({ method: 'POST', url: '/agents/nobody/async', headers: { ...authorized, 'idempotency-key': 'parts-3' }, payload: { conversationKey: 'c1', message: 'hi' } });
    expect(unknownAgent.statusCode).toBe(404);
    expect((await asyncRoutes.inject({ method: 'GET', url: '/status/evt_nothing', headers: authorized })).statusCode).toBe(404);
    const completion = await asyncRoutes.inject({ method: 'POST', url: '/async-tools/res_nothing/complete', headers: authorized, payload: { status: 'failed', error: 'no' } });
    expect(completion.statusCode).toBe(404);

    const cancel = appWith((app) => registerCancelRoutes(app, partsOf(core, ['accounts', 'cancellation'])));
    expect((await cancel.inject({ method: 'POST', url: '/status/evt_nothing/cancel', headers: authorized })).statusCode).toBe(404);
    expect((await cancel.inject({ method: 'POST', url: '/agents/helper/conversations/c1/cancel', headers: authorized })).statusCode).toBe(409);

    const compaction = appWith((app) => registerCompactionRoutes(app, partsOf(core, ['accounts', 'compaction'])));
    expect((await compaction.inject({ method: 'POST', url: '/agents/helper/conversations/c1/compact', headers: authorized })).statusCode).toBe(404);
  });

  it('webhook, delivery, playground and MCP routes', async () => {
    const webhooks = appWith((app) => registerWebhookRoutes(app, partsOf(core, ['channels'])));
    expect((await webhooks.inject({ method: 'POST', url: `/webhooks/${accountId}/helper/telegram`, payload: {} })).statusCode).toBe(404);

    const deliveries = appWith((app) => registerWebhookDeliveryRoutes(app, partsOf(core, ['accounts', 'completionWebhooks'])));
    expect((await deliveries.inject({ method: 'GET', url: '/agents/helper/webhook-deliveries', headers: authorized })).json()).toEqual({ deliveries: [] });

    const playground = appWith((app) => registerPlaygroundRoutes(app, partsOf(core, ['accounts', 'agents', 'cronJobs']), { enabled: true, assets: new Map() }));
    expect((await playground.inject({ method: 'GET', url: '/playground/api/agents', headers: authorized })).json()).toMatchObject({ agents: expect.arrayContaining([{ agentId: 'helper', tools: [] }]) });

    const mcp = appWith((app) => registerMcpRoutes(app, partsOf(core, ['accounts', 'agents', 'turns', 'rateLimiters'])));
    expect((await mcp.inject({ method: 'GET', url: '/mcp', headers: authorized })).json()).toMatchObject({ tools: expect.arrayContaining(['ask_helper']) });

    const mcpTools = appWith((app) => registerMcpServerToolsRoutes(app, partsOf(core, ['accounts', 'agents', 'mcpConnections'])));
    expect((await mcpTools.inject({ method: 'GET', url: '/agents/helper/mcp/none/tools', headers: authorized })).statusCode).toBe(404);
  });
});
