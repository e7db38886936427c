/**
 * `npm start`: the whole local stack on loopback. Both services on one data folder
 * (`.harness/<stage>`), the fixture model and the fake search service they talk to, and a demo
 * account (saved as the CLI profile `demo`) with a demo agent. Ctrl-C stops everything cleanly.
 */
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { loadProfiles, type Profile, profilesPath, saveProfile } from '../cli/profiles.js';
import { startFixtureModel } from '../fixtures/model-server/fixture-model-server.js';
import { startFixtureSearch } from '../fixtures/search-server/fixture-search-server.js';
import { startMockWorker } from '../mock-worker/mock-worker.js';
import { serve } from '../server/serve.js';
import { createProcessLogger } from '../server/process-logger.js';

const demoProfileName = 'demo';
const fixtureModelKey = `sk-fixture-${randomBytes(12).toString('hex')}`;
const fixtureSearchKey = `tvly-fixture-${randomBytes(12).toString('hex')}`;

function portFromEnvironment(name: string, fallback: number): number {
  const value = process.env[name];
  return value ? Number(value) : fallback;
}

async function request(url: string, init: RequestInit & { secret?: string } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.secret ? { authorization: `Bearer ${init.secret}` } : {}) };
  const response = await fetch(url, { ...init, headers });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** The saved demo profile when it still works against this service, else a new demo account. */
async function demoAccount(accountUrl: string, agentUrl: string): Promise<Profile> {
  const path = profilesPath(process.env, homedir());
  const saved = (await loadProfiles(path))[demoProfileName];
  if (saved) {
    const me = await request(`${accountUrl}/accounts/me`, { secret: saved.secret });
    if (me.status === 200) {
      const profile = { ...saved, accountUrl, agentUrl };
      await saveProfile(path, demoProfileName, profile);
      return profile;
    }
  }
  for (const username of ['demo', `demo-${randomBytes(3).toString('hex')}`]) {
    const created = await request(`${accountUrl}/accounts`, { method: 'POST', body: JSON.stringify({ username, description: 'Demo account created by npm start' }) });
    if (created.status === 409) continue;
    if (created.status !== 201) throw new Error(`Creating the demo account failed: ${JSON.stringify(created.body)}`);
    const profile: Profile = { accountUrl, agentUrl, accountId: String(created.body.accountId), username, secret: String(created.body.secret) };
    await saveProfile(path, demoProfileName, profile);
    return profile;
  }
  throw new Error('Could not pick a free demo username.');
}

async function main(): Promise<void> {
  const logger = createProcessLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr);
  const model = await startFixtureModel({ apiKey: fixtureModelKey, port: portFromEnvironment('FIXTURE_MODEL_PORT', 4400) });
  const search = await startFixtureSearch({ apiKey: fixtureSearchKey, port: portFromEnvironment('FIXTURE_SEARCH_PORT', 4500) });
  process.env.ALPHA_BASE_URL ??= search.baseURL;
  process.env.ALPHA_API_KEY ??= fixtureSearchKey;
  const worker = await startMockWorker({ port: portFromEnvironment('MOCK_WORKER_PORT', 4300), delayMs: 1000 });
  process.env.MOCK_WORKER_URL ??= worker.dispatchUrl;
  const services = await serve({ logger });
  const profile = await demoAccount(services.accountUrl, services.agentUrl);
  const agent = await request(`${services.accountUrl}/accounts/me/agents/demo`, {
    method: 'PUT',
    secret: profile.secret,
    body: JSON.stringify({
      config: {
        system: 'You are the harness demo agent. Keep answers short.',
        provider: { openai: { apiKey: fixtureModelKey, baseURL: model.baseURL, model: 'fixture-model', api: 'responses' } },
        tools: { alphaSearch: { needsApproval: true, maxResults: 3 }, test_async: { async: true, execution: 'same-invocation', durationMs: 500 } },
      },
    }),
  });
  if (agent.status >= 300) throw new Error(`Configuring the demo agent failed: ${JSON.stringify(agent.body)}`);
  // external-dispatch: the mock worker completes each call at the agent service's own address
  // with the demo account's secret (SSE refuses external-dispatch, so this one is for /async).
  const dispatchAgent = await request(`${services.accountUrl}/accounts/me/agents/demo-dispatch`, {
    method: 'PUT',
    secret: profile.secret,
    body: JSON.stringify({
      config: {
        system: 'You are the harness demo agent for external workers.',
        provider: { openai: { apiKey: fixtureModelKey, baseURL: model.baseURL, model: 'fixture-model', api: 'responses' } },
        tools: {
          test_external_async: {
            async: true,
            execution: 'external-dispatch',
            completionBaseUrl: services.agentUrl,
            completionBearerToken: profile.secret,
            workerUrl: worker.dispatchUrl,
          },
        },
      },
    }),
  });
  if (dispatchAgent.status >= 300) throw new Error(`Configuring the demo-dispatch agent failed: ${JSON.stringify(dispatchAgent.body)}`);

  const root = (await request(`${services.agentUrl}/`)).body as { nats?: string };
  const natsLine =
    root.nats === 'connected'
      ? '  nats              connected (embedded nats-server; try `chat --transport nats`)'
      : root.nats === 'disabled'
        ? '  nats              off (ENABLE_WEBSOCKET=false, or nats-server is not installed: apt-get install -y nats-server)'
        : `  nats              ${root.nats ?? 'unknown'}`;
  const lines = [
    '',
    'harness is running (stage local, data in ' + services.dataDir + ')',
    `  account service   ${services.accountUrl}`,
    `  agent service     ${services.agentUrl}`,
    `  fixture model     ${model.baseURL}`,
    `  fixture search    ${search.baseURL}`,
    `  mock worker       ${worker.dispatchUrl}`,
    natsLine,
    `  demo account      ${profile.username} (${profile.accountId}), saved as CLI profile "${demoProfileName}"`,
    `  demo secret       ${profile.secret}`,
    '',
    'Try next, in another terminal:',
    `  npx harness --profile ${demoProfileName} chat demo`,
    '    (type "search: otters" for a tool that asks for approval, "call test_async {}" for an async tool)',
    `  npx harness --profile ${demoProfileName} async demo-dispatch -m 'call test_external_async {"task":"demo"}' --wait`,
    `  npx harness --profile ${demoProfileName} chat demo --transport nats -m "hello over NATS"`,
    `  npx harness --profile ${demoProfileName} tools list demo`,
    '',
    'Ctrl-C stops everything.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  const stop = async (signal: string) => {
    process.stdout.write(`\n${signal} received, stopping...\n`);
    await services.close();
    await Promise.all([model.close(), search.close(), worker.close()]);
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`npm start: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
