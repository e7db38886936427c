import { mkdir } from 'node:fs/promises';
import { createHarnessCore, type HarnessCore } from '../../server/core/composition/harness-core.js';
import { defineInfrastructure } from '../../server/core/infrastructure.js';
import type { Logger } from '../../server/core/logger.js';
import type { BubblewrapStatus } from '../../server/core/sandbox/bubblewrap-probe.js';
import type { CgroupSupport } from '../../server/core/sandbox/sandbox-cgroups.js';
import { defaultSandboxSettings, type SandboxSettings } from '../../server/core/sandbox/sandbox-settings.js';
import { defaultServiceLimits, type ServiceLimits } from '../../server/core/limits/service-limits.js';
import type { OutboundSettings } from '../../server/core/outbound/outbound-settings.js';
import type { McpSettings } from '../../server/core/mcp/mcp-settings.js';
import type { MemorySettings } from '../../server/core/memory/memory-settings.js';
import type { ModelSettings } from '../../server/core/model/model-settings.js';
import type { TurnSettings } from '../../server/core/turns/turn-settings.js';
import type { WebhookSettings } from '../../server/core/completion-webhooks/webhook-settings.js';
import type { SchedulerClock } from '../../server/core/cron-jobs/scheduler-clock.js';
import { openTestStorage } from './test-storage.js';
import { buildAccountService } from '../../server/http/account-service.js';
import { buildAgentService } from '../../server/http/agent-service.js';
import type { RouteEntry } from '../../server/http/create-app.js';
import { startFixtureModel, type FixtureModelServer } from '../../fixtures/model-server/fixture-model-server.js';
import { startFixtureSearch, type FixtureSearchServer } from '../../fixtures/search-server/fixture-search-server.js';
import { testAdminSecret, testEncryptionSecret } from './test-services.js';
import { temporaryFolder } from './temporary-folder.js';

export const modelKey = 'sk-fixture-model-key-0123456789';
export const searchKey = 'tvly-fixture-search-key-0123456789';

export interface RecordedLog {
  level: 'info' | 'warn' | 'error' | 'debug';
  fields: Record<string, unknown>;
  message?: string;
}

export interface ChatStack {
  model: FixtureModelServer;
  search: FixtureSearchServer;
  core: HarnessCore;
  accountUrl: string;
  agentUrl: string;
  logs: RecordedLog[];
  /** The data folder, and the filesystem bucket folder in it (named by the infrastructure definition). */
  dataDir: string;
  bucketFolder: string;
  /** Every route of the two services, as registered. */
  routes: { account: RouteEntry[]; agent: RouteEntry[] };
  /** Stop the services and start new ones on the same data folder (fixtures keep running). */
  restart(): Promise<void>;
  close(): Promise<void>;
  createAccount(username: string): Promise<{ accountId: string; secret: string }>;
  putAgent(secret: string, agentId: string, config: Record<string, unknown>): Promise<void>;
  /** The provider block that points an agent at the fixture model. */
  provider(api?: 'responses' | 'chat'): Record<string, unknown>;
  chat(secret: string, agentId: string, body: unknown, accept?: string): Promise<Response>;
}

export interface ChatStackOptions {
  enableDirectApi?: boolean;
  /** Serve the web playground (default: off, as for any stage but `local`). */
  playground?: boolean;
  alphaApiKey?: string;
  sameInvocationTimeoutMs?: number;
  limits?: Partial<ServiceLimits>;
  /** The core's clock (default: real time). */
  now?: () => Date;
  /** What the bubblewrap probe found (default: not probed, so bash is unavailable). */
  bubblewrap?: BubblewrapStatus;
  /** The operator's sandbox settings (default: the defaults, whatever the test process's environment holds). */
  sandboxSettings?: SandboxSettings;
  /** Where per-call cgroups are made (default: none, so limits are per process). */
  sandboxCgroups?: CgroupSupport;
  /** Where accounts' outbound calls may go (default: anywhere, so the loopback fixtures work). */
  outbound?: OutboundSettings;
  /** How completion webhooks are retried (default: the defaults, whatever the environment holds). */
  webhooks?: WebhookSettings;
  /** The cron scheduler's clock (default: real time). */
  cronClock?: SchedulerClock;
  /** MCP timeouts and pool bounds (default: the defaults, whatever the environment holds). */
  mcp?: McpSettings;
  /** Bounds on one model call's answer (default: the defaults, whatever the environment holds). */
  model?: ModelSettings;
  /** Bounds on what a turn's model calls leave behind (default: the defaults, whatever the environment holds). */
  turns?: TurnSettings;
  /** Bounds on memory notes (default: the defaults, whatever the environment holds). */
  memory?: MemorySettings;
}

/** Both services listening on loopback, on real lowdb files, with the fixture model and search service. */
export async function startChatStack(options: ChatStackOptions = {}): Promise<ChatStack> {
  const folder = await temporaryFolder();
  const bucketFolder = `${folder.path}/${defineInfrastructure('test').filesystemBucketName}`;
  await mkdir(bucketFolder, { recursive: true });
  const model = await startFixtureModel({ apiKey: modelKey });
  const search = await startFixtureSearch({ apiKey: searchKey });
  const logs: RecordedLog[] = [];
  const record = (level: RecordedLog['level']) => (fields: Record<string, unknown>, message?: string) => logs.push({ level, fields, message });
  const logger: Logger = { info: record('info'), warn: record('warn'), error: record('error'), debug: record('debug') };

  const start = async () => {
    const storage = await openTestStorage(`${folder.path}/tables`);
    const core = createHarnessCore({
      storage,
      infrastructure: defineInfrastructure('test'),
      secrets: { adminSecret: testAdminSecret, configEncryptionSecret: testEncryptionSecret },
      logger,
      ...(options.now ? { now: options.now } : {}),
      toolEnvironment: { alphaBaseUrl: search.baseURL, alphaApiKey: options.alphaApiKey },
      modelMaxRetries: 0,
      bucketFolder,
      ...(options.bubblewrap ? { bubblewrap: options.bubblewrap } : {}),
      sandboxSettings: options.sandboxSettings ?? defaultSandboxSettings,
      ...(options.sandboxCgroups ? { sandboxCgroups: options.sandboxCgroups } : {}),
      outbound: options.outbound ?? { mode: 'any', allow: [] },
      ...(options.webhooks ? { webhooks: options.webhooks } : {}),
      ...(options.cronClock ? { cronClock: options.cronClock } : {}),
      ...(options.mcp ? { mcp: options.mcp } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(options.turns ? { turns: options.turns } : {}),
      ...(options.memory ? { memory: options.memory } : {}),
      limits: { ...defaultServiceLimits, ...options.limits },
      ...(options.sameInvocationTimeoutMs ? { sameInvocationTimeoutMs: options.sameInvocationTimeoutMs } : {}),
    });
    const accountApp = buildAccountService({ core });
    const agentApp = buildAgentService({ core, enableDirectApi: options.enableDirectApi ?? true, playground: options.playground ?? false });
    const accountUrl = await accountApp.listen({ port: 0, host: '127.0.0.1' });
    const agentUrl = await agentApp.listen({ port: 0, host: '127.0.0.1' });
    await core.start();
    return {
      core,
      accountUrl,
      agentUrl,
      routes: { account: accountApp.routeCatalog, agent: agentApp.routeCatalog },
      stop: async () => {
        await Promise.all([accountApp.close(), agentApp.close()]);
        await core.stop();
        await storage.close();
      },
    };
  };

  let running = await start();
  const stack: ChatStack = {
    model,
    search,
    logs,
    dataDir: folder.path,
    bucketFolder,
    get core() {
      return running.core;
    },
    get accountUrl() {
      return running.accountUrl;
    },
    get agentUrl() {
      return running.agentUrl;
    },
    get routes() {
      return running.routes;
    },
    restart: async () => {
      await running.stop();
      running = await start();
    },
    close: async () => {
      await running.stop();
      await Promise.all([model.close(), search.close()]);
      await folder.remove();
    },
    createAccount: async (username) => {
      const response = await fetch(`${running.accountUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, description: 'test' }) });
      if (response.status !== 201) throw new Error(`account: ${response.status} ${await response.text()}`);
      return (await response.json()) as { accountId: string; secret: string };
    },
    putAgent: async (secret, agentId, config) => {
      const response = await fetch(`${running.accountUrl}/accounts/me/agents/${agentId}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: JSON.stringify({ config }),
      });
      if (response.status >= 300) throw new Error(`agent: ${response.status} ${await response.text()}`);
    },
    provider: (api = 'responses') => ({ openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture-model', api } }),
    chat: (secret, agentId, body, accept = 'application/json') =>
      fetch(`${running.agentUrl}/agents/${agentId}/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}`, accept },
        body: JSON.stringify(body),
      }),
  } as ChatStack;
  return stack;
}
