import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeChannelApis, type FakeChannelApis } from '../fixtures/channel-apis/fake-channel-apis.js';
import { startFixtureModel, type FixtureModelServer } from '../fixtures/model-server/fixture-model-server.js';
import { startFixtureSearch, type FixtureSearchServer } from '../fixtures/search-server/fixture-search-server.js';
import { startMockWorker, type MockWorker } from '../mock-worker/mock-worker.js';
import { generatedSecretsFileName } from '../server/core/secrets/runtime-secrets.js';
import { silentLogger } from '../server/core/logger.js';
import { connectNats } from '../server/nats/nats-connection.js';
import { natsAuthenticationOf } from '../server/nats/nats-protocol.js';
import { chatSubject } from '../server/nats/nats-subjects.js';
import { TestInbox, textOf } from './support/nats-stack.js';
import { channelSettings, discordHeaders, discordKeys, githubSignature, slackHeaders } from './support/channels-stack.js';
import { startServiceProcess, type ServiceProcess } from './support/service-process.js';
import { temporaryFolder } from './support/temporary-folder.js';
import { storedRowsText } from './support/test-storage.js';

const providerKey = 'sk-SCAN-provider-key-000000000001';
const searchKey = 'tvly-SCAN-search-key-0000000002';
const extractKey = 'tvly-SCAN-extract-key-000000003';

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe('secret scan after a full scenario', () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let service: ServiceProcess;
  let model: FixtureModelServer;
  let search: FixtureSearchServer;
  let apis: FakeChannelApis;
  let worker: MockWorker;
  const responses: { what: string; body: string }[] = [];

  beforeAll(async () => {
    folder = await temporaryFolder();
    model = await startFixtureModel({ apiKey: providerKey });
    search = await startFixtureSearch({ apiKey: searchKey });
    apis = await startFakeChannelApis();
    worker = await startMockWorker({ port: 0, delayMs: 10 });
    // NATS on too (the embedded nats-server), so the NATS transport is part of the scenario.
    service = await startServiceProcess(folder.path, { LOG_LEVEL: 'debug', ALPHA_BASE_URL: search.baseURL, ENABLE_WEBSOCKET: 'true' });
  });
  afterAll(async () => {
    await service.stop();
    await Promise.all([model.close(), search.close(), apis.close(), worker.close()]);
    await folder.remove();
  });

  it('finds no secret in the data folder, the logs, or any response', async () => {
    const call = async (what: string, url: string, init: RequestInit = {}, record = true) => {
      const response = await fetch(url, init);
      const body = await response.text();
      if (record) responses.push({ what: `${what} → ${response.status}`, body });
      return { status: response.status, body };
    };
    const json = (secret: string | undefined, body?: unknown): RequestInit => ({
      headers: { 'content-type': 'application/json', ...(secret ? { authorization: `Bearer ${secret}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // The one response allowed to show a secret: account creation.
    const created = JSON.parse((await call('POST /accounts', `${service.accountUrl}/accounts`, { method: 'POST', ...json(undefined, { username: 'scanner', description: 'scan' }) }, false)).body) as { accountId: string; secret: string };
    const accountSecret = created.secret;
    const discord = discordKeys();
    const channels = channelSettings(apis, discord.publicKeyHex);
    const config = {
      provider: { openai: { apiKey: providerKey, baseURL: model.baseURL, model: 'fixture', api: 'responses' } },
      tools: {
        alphaSearch: { apiKey: searchKey, needsApproval: true },
        alphaExtract: { apiKey: extractKey },
        test_async: { async: true, durationMs: 1 },
        test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: service.agentUrl, completionBearerToken: accountSecret, workerUrl: worker.dispatchUrl },
      },
      channels,
    };
    await call('PUT agent', `${service.accountUrl}/accounts/me/agents/scan`, { method: 'PUT', ...json(accountSecret, { config }) });
    await call('PATCH agent', `${service.accountUrl}/accounts/me/agents/scan`, { method: 'PATCH', ...json(accountSecret, { config: { system: 'scan' } }) });
    await call('GET agent', `${service.accountUrl}/accounts/me/agents/scan`, json(accountSecret));
    await call('GET agents', `${service.accountUrl}/accounts/me/agents`, json(accountSecret));
    await call('GET me', `${service.accountUrl}/accounts/me`, json(accountSecret));
    const chat = (message: unknown, key = 'scan') => call('chat', `${service.agentUrl}/agents/scan/chat`, { method: 'POST', ...json(accountSecret, { conversationKey: key, message }) });
    const pending = JSON.parse((await chat('search: secrets')).body) as { pendingApprovals: { approvalId: string }[] };
    await chat({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: pending.pendingApprovals[0]!.approvalId, approved: true }] });
    await chat('extract: https://example.com/page');
    await chat('call test_async {"label":"scan"}');
    const waiting = JSON.parse((await chat('call test_external_async {"task":"scan"}', 'scan-external')).body) as { statusUrl: string };
    await worker.settled();
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const status = JSON.parse((await call('status', waiting.statusUrl, json(accountSecret))).body) as { status: string };
      if (status.status === 'completed' || status.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const queued = JSON.parse((await call('async', `${service.agentUrl}/agents/scan/async`, { method: 'POST', ...json(accountSecret, { conversationKey: 'scan-async', message: 'hello' }) })).body) as { statusUrl: string };
    await call('status', queued.statusUrl, json(accountSecret));
    await call('conversation', `${service.agentUrl}/agents/scan/conversations/scan`, json(accountSecret));
    // Channel deliveries, each verified with its secret.
    const webhook = (provider: string, body: string, headers: Record<string, string>, query = '') =>
      call(`webhook ${provider}`, `${service.agentUrl}/webhooks/${created.accountId}/scan/${provider}${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const telegram = JSON.stringify({ update_id: 1, message: { message_id: 1, chat: { id: 42, type: 'private' }, from: { id: 7, is_bot: false, first_name: 'A' }, text: 'hello telegram' } });
    await webhook('telegram', telegram, { 'x-telegram-bot-api-secret-token': String(channels.telegram.secretToken) });
    const github = JSON.stringify({ action: 'created', issue: { number: 3 }, comment: { id: 9, body: 'hello github', user: { login: 'someone', type: 'User' } }, repository: { full_name: 'owner/repo' }, sender: { login: 'someone', type: 'User' } });
    await webhook('github', github, { 'x-github-event': 'issue_comment', 'x-github-delivery': 'delivery-1', 'x-hub-signature-256': githubSignature(String(channels.github.webhookSecret), github) });
    const slack = JSON.stringify({ type: 'event_callback', event_id: 'Ev1', event: { type: 'app_mention', channel: 'C1', user: 'U1', text: 'hello slack', ts: '1.1' } });
    await webhook('slack', slack, slackHeaders(String(channels.slack.signingSecret), slack));
    const interaction = JSON.stringify({ type: 2, id: 'i1', application_id: 'app-1', token: 'interaction-token', channel_id: 'c1', data: { name: 'ask', options: [{ name: 'prompt', type: 3, value: 'hello discord' }] } });
    await webhook('discord', interaction, discordHeaders(discord.privateKey, interaction));
    await webhook('pancake', '{}', {}, `?token=${String(channels.pancake.verifyToken)}`);
    await webhook('zalo', '{}', { 'x-bot-api-secret-token': String(channels.zalo.secretToken) });
    // A turn over NATS: the bearer travels in a NATS header. The credentials answer, like the
    // account creation answer, is the one place that shows the account's NATS password.
    const nats = JSON.parse((await call('GET nats', `${service.accountUrl}/accounts/me/nats`, json(accountSecret), false)).body) as { websocketUrl: string; user: string; password: string; jwt: string | null; inboxPrefix: string };
    const connection = await connectNats({ url: nats.websocketUrl, ...natsAuthenticationOf(nats), inboxPrefix: nats.inboxPrefix, name: 'secret-scan', logger: silentLogger });
    const inbox = new TestInbox(connection, nats.inboxPrefix);
    await inbox.request(chatSubject(created.accountId, 'scan'), accountSecret, { conversationKey: 'scan-nats', message: 'hello over nats' });
    const natsChunks = await inbox.untilFinal();
    responses.push({ what: 'NATS chunks', body: JSON.stringify(natsChunks) });
    inbox.close();
    await connection.close();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await service.stop();

    const secrets = [providerKey, searchKey, extractKey, accountSecret, nats.password, ...Object.values(channels).flatMap((settings) => Object.entries(settings).filter(([name]) => /token|secret|apikey/i.test(name) && name !== 'publicKey').map(([, value]) => String(value)))];
    expect(secrets.length).toBeGreaterThanOrEqual(15);
    expect(textOf(natsChunks)).toBe('Echo: hello over nats');
    const hits: string[] = [];
    for (const file of await filesUnder(folder.path)) {
      if (file.endsWith(generatedSecretsFileName)) continue;
      const content = await readFile(file);
      for (const secret of secrets) if (content.includes(secret)) hits.push(`data file ${file.slice(folder.path.length)} holds ${secret.slice(0, 12)}…`);
    }
    // On PostgreSQL (the test storage switch) the rows are in the database, not in data files.
    const storedRows = await storedRowsText(folder.path);
    for (const secret of secrets) if (storedRows?.includes(secret)) hits.push(`the stored rows hold ${secret.slice(0, 12)}…`);
    const logs = service.output();
    expect(logs.length).toBeGreaterThan(1000);
    for (const secret of secrets) if (logs.includes(secret)) hits.push(`the logs hold ${secret.slice(0, 12)}…`);
    for (const response of responses) for (const secret of secrets) if (response.body.includes(secret)) hits.push(`${response.what} holds ${secret.slice(0, 12)}…`);
    console.log(`secret scan: ${secrets.length} secrets, ${(await filesUnder(folder.path)).length} data files, ${logs.length} bytes of logs, ${responses.length} responses: ${hits.length} hits`);
    expect(hits).toEqual([]);
    expect(search.requests().length).toBeGreaterThanOrEqual(2);
    expect(apis.received().length).toBeGreaterThanOrEqual(3);
  });
});
