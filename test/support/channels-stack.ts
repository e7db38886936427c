import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { startFakeChannelApis, type FakeChannelApis, type FakeChannelProvider } from '../../fixtures/channel-apis/fake-channel-apis.js';
import { startFixtureModel, type FixtureModelServer } from '../../fixtures/model-server/fixture-model-server.js';
import { startFixtureSearch, type FixtureSearchServer } from '../../fixtures/search-server/fixture-search-server.js';
import { createHarnessCore, type HarnessCore } from '../../server/core/harness-core.js';
import { defineInfrastructure } from '../../server/core/infrastructure.js';
import type { Logger } from '../../server/core/logger.js';
import { LowdbStorage } from '../../server/core/storage/lowdb-storage.js';
import { buildAccountService } from '../../server/http/account-service.js';
import { buildAgentService } from '../../server/http/agent-service.js';
import { temporaryFolder } from './temporary-folder.js';
import { testAdminSecret, testEncryptionSecret } from './test-services.js';

export const modelKey = 'sk-fixture-model-key-0123456789';
export const searchKey = 'tvly-fixture-search-key-0123456789';

export interface LogLine {
  level: string;
  fields: Record<string, unknown>;
  message?: string;
}

/**
 * Both services on loopback (real lowdb files), the fixture model and search service, and
 * the fake channel APIs. The core's clock can be moved (Slack's documented example is
 * signed in 2018); `restart()` rebuilds the services on the same data folder.
 */
export interface ChannelsStack {
  model: FixtureModelServer;
  search: FixtureSearchServer;
  apis: FakeChannelApis;
  core: HarnessCore;
  accountUrl: string;
  agentUrl: string;
  logs: LogLine[];
  /** Pins the core's clock; `undefined` goes back to real time. */
  setNow(date: Date | undefined): void;
  restart(): Promise<void>;
  close(): Promise<void>;
  createAccount(username: string): Promise<{ accountId: string; secret: string }>;
  putAgent(secret: string, agentId: string, config: Record<string, unknown>): Promise<Response>;
  provider(): Record<string, unknown>;
  /** POSTs the exact bytes to `/webhooks/{accountId}/{agentId}/{provider}{query}`. */
  webhook(path: { accountId: string; agentId: string; provider: string; query?: string }, body: string | Uint8Array, headers: Record<string, string>): Promise<Response>;
  /** Waits until the channel worker and the async worker have nothing queued or running. */
  idle(): Promise<void>;
}

export async function startChannelsStack(): Promise<ChannelsStack> {
  const folder = await temporaryFolder();
  const model = await startFixtureModel({ apiKey: modelKey });
  const search = await startFixtureSearch({ apiKey: searchKey });
  const apis = await startFakeChannelApis();
  const logs: LogLine[] = [];
  const record = (level: string) => (fields: Record<string, unknown>, message?: string) => logs.push({ level, fields, message });
  const logger: Logger = { info: record('info'), warn: record('warn'), error: record('error'), debug: record('debug') };
  let pinned: Date | undefined;

  const start = async () => {
    const storage = new LowdbStorage(`${folder.path}/tables`);
    const core = createHarnessCore({
      storage,
      infrastructure: defineInfrastructure('test'),
      secrets: { adminSecret: testAdminSecret, configEncryptionSecret: testEncryptionSecret },
      logger,
      now: () => pinned ?? new Date(),
      toolEnvironment: { alphaBaseUrl: search.baseURL },
      modelMaxRetries: 0,
    });
    const accountApp = buildAccountService({ core });
    const agentApp = buildAgentService({ core });
    const accountUrl = await accountApp.listen({ port: 0, host: '127.0.0.1' });
    const agentUrl = await agentApp.listen({ port: 0, host: '127.0.0.1' });
    await core.start();
    return {
      core,
      accountUrl,
      agentUrl,
      stop: async () => {
        await Promise.all([accountApp.close(), agentApp.close()]);
        await core.stop();
        await storage.close();
      },
    };
  };

  let running = await start();
  return {
    model,
    search,
    apis,
    logs,
    get core() {
      return running.core;
    },
    get accountUrl() {
      return running.accountUrl;
    },
    get agentUrl() {
      return running.agentUrl;
    },
    setNow: (date) => {
      pinned = date;
    },
    restart: async () => {
      await running.stop();
      running = await start();
    },
    close: async () => {
      await running.stop();
      await Promise.all([model.close(), search.close(), apis.close()]);
      await folder.remove();
    },
    createAccount: async (username) => {
      const response = await fetch(`${running.accountUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, description: 'test' }) });
      if (response.status !== 201) throw new Error(`account: ${response.status} ${await response.text()}`);
      return (await response.json()) as { accountId: string; secret: string };
    },
    putAgent: (secret, agentId, config) =>
      fetch(`${running.accountUrl}/accounts/me/agents/${agentId}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: JSON.stringify({ config }),
      }),
    provider: () => ({ openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture-model', api: 'responses' } }),
    webhook: (path, body, headers) =>
      fetch(`${running.agentUrl}/webhooks/${path.accountId}/${path.agentId}/${path.provider}${path.query ?? ''}`, { method: 'POST', headers, body }),
    idle: async () => {
      for (let round = 0; round < 3; round += 1) {
        await running.core.channels.worker.idle();
        await running.core.asyncWorker.idle();
      }
    },
  };
}

/** Channel settings for every provider, pointed at the fake APIs. */
export function channelSettings(apis: FakeChannelApis, discordPublicKey: string): Record<FakeChannelProvider, Record<string, unknown>> {
  return {
    telegram: { botToken: '123456:telegram-bot-token-abc', secretToken: 'telegram-secret-token-0123', apiBaseUrl: apis.baseURL('telegram') },
    github: { webhookSecret: 'github-webhook-secret-0123', token: 'ghp_github-token-0123456789', apiBaseUrl: apis.baseURL('github') },
    slack: { signingSecret: 'slack-signing-secret-0123', botToken: 'xoxb-slack-bot-token-0123', apiBaseUrl: apis.baseURL('slack') },
    discord: { publicKey: discordPublicKey, applicationId: 'app-1', botToken: 'discord-bot-token-0123456', apiBaseUrl: apis.baseURL('discord') },
    pancake: { pageId: 'page-1', accessToken: 'pancake-access-token-0123', verifyToken: 'pancake-verify-token-0123', apiBaseUrl: apis.baseURL('pancake') },
    zalo: { secretToken: 'zalo-secret-token-0123', accessToken: 'zalo-access-token-0123', apiBaseUrl: apis.baseURL('zalo') },
  };
}

/** An Ed25519 key pair made for the test, with the public key as Discord shows it (hex). */
export function discordKeys(): { privateKey: KeyObject; publicKeyHex: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return { privateKey, publicKeyHex: der.subarray(der.length - 32).toString('hex') };
}

export const unixNow = (): number => Math.floor(Date.now() / 1000);

export function githubSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function slackHeaders(secret: string, body: string, timestamp = unixNow()): Record<string, string> {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return { 'content-type': 'application/json', 'x-slack-signature': signature, 'x-slack-request-timestamp': String(timestamp) };
}

export function discordHeaders(privateKey: KeyObject, body: string, timestamp = unixNow()): Record<string, string> {
  const signature = sign(null, Buffer.from(`${timestamp}${body}`), privateKey).toString('hex');
  return { 'content-type': 'application/json', 'x-signature-ed25519': signature, 'x-signature-timestamp': String(timestamp) };
}
