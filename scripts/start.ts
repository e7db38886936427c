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
import { startFixtureMcpServer } from '../fixtures/mcp-server/fixture-mcp-server.js';
import { startMockWorker } from '../mock-worker/mock-worker.js';
import { serve } from '../server/serve.js';
import { createProcessLogger } from '../server/process-logger.js';

const demoProfileName = 'demo';
const fixtureModelKey = `sk-fixture-${randomBytes(12).toString('hex')}`;
const fixtureSearchKey = `tvly-fixture-${randomBytes(12).toString('hex')}`;
const fixtureMcpToken = `mcp-fixture-${randomBytes(12).toString('hex')}`;

function portFromEnvironment(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`${name} must be a port number from 0 to 65535 (got ${JSON.stringify(value)}).`);
  return port;
}

/** What was started so far, stopped in reverse order when a later part fails or on Ctrl-C. */
const started: { close(): Promise<void> }[] = [];

async function stopStarted(): Promise<void> {
  for (const part of started.splice(0).reverse()) await part.close().catch(() => undefined);
}

/**
 * Starts one part of the stack. A port that is taken becomes a sentence naming the part and
 * the variable that moves it, instead of a bare `listen EADDRINUSE`.
 */
async function startPart<T extends { close(): Promise<void> }>(name: string, ports: Record<string, number>, start: () => Promise<T>): Promise<T> {
  try {
    const part = await start();
    started.push(part);
    return part;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { port?: number };
    if (failure.code === 'EADDRINUSE' || /EADDRINUSE|port is in use/.test(failure.message)) {
      const taken = Object.entries(ports).filter(([, port]) => failure.port === undefined || failure.port === port);
      const where = taken.map(([variable, port]) => `port ${port} (set ${variable} to move it)`).join(' or ');
      throw new Error(`the ${name} cannot listen on ${where}: the port is in use. Stop what holds it, or pick another port.`, { cause: error });
    }
    throw new Error(`the ${name} could not start: ${failure.message}`, { cause: error });
  }
}

async function request(url: string, init: RequestInit & { secret?: string } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.secret ? { authorization: `Bearer ${init.secret}` } : {}) };
  const response = await fetch(url, { ...init, headers });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/**
 * Saves the demo account as the profile `demo`, and as `default` too when there is no other
 * default (or the default is an older demo account), so `npx harness chat demo` works without
 * `--profile`.
 */
async function saveDemoProfile(path: string, profile: Profile): Promise<void> {
  const profiles = await loadProfiles(path);
  const previousDemo = profiles[demoProfileName];
  const existingDefault = profiles.default;
  await saveProfile(path, demoProfileName, profile);
  if (!existingDefault || (previousDemo && existingDefault.accountId === previousDemo.accountId)) await saveProfile(path, 'default', profile);
}

/** The saved demo profile when it still works against this service, else a new demo account. */
async function demoAccount(accountUrl: string, agentUrl: string): Promise<Profile> {
  const path = profilesPath(process.env, homedir());
  const saved = (await loadProfiles(path))[demoProfileName];
  if (saved) {
    const me = await request(`${accountUrl}/accounts/me`, { secret: saved.secret });
    if (me.status === 200) {
      const profile = { ...saved, accountUrl, agentUrl };
      await saveDemoProfile(path, profile);
      return profile;
    }
  }
  for (const username of ['demo', `demo-${randomBytes(3).toString('hex')}`]) {
    const created = await request(`${accountUrl}/accounts`, { method: 'POST', body: JSON.stringify({ username, description: 'Demo account created by npm start' }) });
    if (created.status === 409) continue;
    if (created.status !== 201) throw new Error(`Creating the demo account failed: ${JSON.stringify(created.body)}`);
    const profile: Profile = { accountUrl, agentUrl, accountId: String(created.body.accountId), username, secret: String(created.body.secret) };
    await saveDemoProfile(path, profile);
    return profile;
  }
  throw new Error('Could not pick a free demo username.');
}

async function main(): Promise<void> {
  const logger = createProcessLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr);
  const modelPort = portFromEnvironment('FIXTURE_MODEL_PORT', 4400);
  const model = await startPart('fixture model', { FIXTURE_MODEL_PORT: modelPort }, () => startFixtureModel({ apiKey: fixtureModelKey, port: modelPort }));
  const searchPort = portFromEnvironment('FIXTURE_SEARCH_PORT', 4500);
  const search = await startPart('fixture search service', { FIXTURE_SEARCH_PORT: searchPort }, () => startFixtureSearch({ apiKey: fixtureSearchKey, port: searchPort }));
  process.env.ALPHA_BASE_URL ??= search.baseURL;
  process.env.ALPHA_API_KEY ??= fixtureSearchKey;
  const mcpPort = portFromEnvironment('FIXTURE_MCP_PORT', 4600);
  const mcp = await startPart('fixture MCP server', { FIXTURE_MCP_PORT: mcpPort }, () => startFixtureMcpServer({ port: mcpPort, bearer: fixtureMcpToken }));
  const workerPort = portFromEnvironment('MOCK_WORKER_PORT', 4300);
  const worker = await startPart('mock worker', { MOCK_WORKER_PORT: workerPort }, () => startMockWorker({ port: workerPort, delayMs: 1000 }));
  process.env.MOCK_WORKER_URL ??= worker.dispatchUrl;
  const servicePorts = { ACCOUNT_PORT: portFromEnvironment('ACCOUNT_PORT', 4100), AGENT_PORT: portFromEnvironment('AGENT_PORT', 4200) };
  const services = await startPart('harness services', servicePorts, () => serve({ logger }));
  const profile = await demoAccount(services.accountUrl, services.agentUrl);
  const agent = await request(`${services.accountUrl}/accounts/me/agents/demo`, {
    method: 'PUT',
    secret: profile.secret,
    body: JSON.stringify({
      config: {
        system: 'You are the harness demo agent. Keep answers short.',
        provider: { openai: { apiKey: fixtureModelKey, baseURL: model.baseURL, model: 'fixture-model', api: 'responses' } },
        tools: { alphaSearch: { needsApproval: true, maxResults: 3 }, test_async: { async: true, execution: 'same-invocation', durationMs: 500 } },
        // The fixture MCP server's tools, as fixture__<tool>; its bearer is a secret (redacted on read).
        mcp: { fixture: { url: mcp.url, headers: { Authorization: `Bearer ${fixtureMcpToken}` }, needsApproval: { fail: true } } },
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
  // The secret is never put in the URL: the page asks for it and keeps it in the tab only.
  const playgroundPage = await fetch(`${services.agentUrl}/playground`);
  const playgroundLine =
    playgroundPage.status === 200
      ? `  playground        ${services.agentUrl}/playground (sign in with the demo secret below)`
      : (await playgroundPage.text()).includes('not built')
        ? '  playground        not built: run `npm run build`'
        : '  playground        off (HARNESS_PLAYGROUND=off)';
  const lines = [
    '',
    'harness is running (stage local, data in ' + services.dataDir + ')',
    `  account service   ${services.accountUrl}`,
    `  agent service     ${services.agentUrl}`,
    `  fixture model     ${model.baseURL}`,
    `  fixture search    ${search.baseURL}`,
    `  fixture MCP       ${mcp.url} (the demo agent's config.mcp.fixture)`,
    `  mock worker       ${worker.dispatchUrl}`,
    natsLine,
    playgroundLine,
    `  demo account      ${profile.username} (${profile.accountId}), saved as CLI profile "${demoProfileName}"`,
    `  demo secret       ${profile.secret}`,
    '',
    'Try next, in another terminal:',
    `  npx harness --profile ${demoProfileName} chat demo`,
    '    (type "search: otters" for a tool that asks for approval, "call test_async {}" for an async tool)',
    `  npx harness --profile ${demoProfileName} async demo-dispatch -m 'call test_external_async {"task":"demo"}' --wait`,
    `  npx harness --profile ${demoProfileName} chat demo --transport nats -m "hello over NATS"`,
    `  npx harness --profile ${demoProfileName} tools list demo`,
    `  npx harness --profile ${demoProfileName} mcp test demo fixture`,
    `  npx harness --profile ${demoProfileName} chat demo -m 'call fixture__weather {"city":"Oslo"}'`,
    `  the demo account's agents over MCP: ${services.agentUrl}/mcp (bearer: the demo secret), tools ask_demo, ask_demo-dispatch`,
    '',
    'Ctrl-C stops everything.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  // Under `npm start` one Ctrl-C arrives twice (the terminal signals the whole foreground group
  // and npm forwards it), so later signals only wait for the first stop to finish.
  let stopping: Promise<void> | undefined;
  const stop = (signal: string): void => {
    if (stopping) return;
    process.stdout.write(`\n${signal} received, stopping...\n`);
    stopping = stopStarted().then(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch(async (error: unknown) => {
  process.stderr.write(`npm start: ${(error as Error).message}\n`);
  await stopStarted();
  process.exit(1);
});
