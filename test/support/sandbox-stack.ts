import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { startFixtureModel, type FixtureModelServer } from '../../fixtures/model-server/fixture-model-server.js';
import { createHarnessCore, type HarnessCore } from '../../server/core/harness-core.js';
import { defineInfrastructure } from '../../server/core/infrastructure.js';
import { accountBucketFolder } from '../../server/core/sandbox/account-bucket.js';
import { type BubblewrapStatus, probeBubblewrap } from '../../server/core/sandbox/bubblewrap-probe.js';
import { LowdbStorage } from '../../server/core/storage/lowdb-storage.js';
import { buildAccountService } from '../../server/http/account-service.js';
import { buildAgentService } from '../../server/http/agent-service.js';
import { temporaryFolder } from './temporary-folder.js';
import { testAdminSecret, testEncryptionSecret } from './test-services.js';

const modelKey = 'sk-fixture-model-key-0123456789';

/** The JSON answer of the chat API. */
export interface ChatAnswer {
  conversationKey: string;
  status: string;
  text: string;
  messages: { role: string; content: unknown }[];
  pendingApprovals: { approvalId: string; toolName: string; input: unknown }[];
}

/** A tool result of a turn, with its JSON output. */
export interface ToolResultPart {
  toolName: string;
  output: unknown;
}

export interface SandboxStack {
  model: FixtureModelServer;
  core: HarnessCore;
  accountUrl: string;
  agentUrl: string;
  dataDir: string;
  bucketFolder: string;
  bubblewrap: BubblewrapStatus;
  close(): Promise<void>;
  createAccount(username: string): Promise<{ accountId: string; secret: string }>;
  /** PUT an agent; resolves with the status and body, whatever they are. */
  putAgent(secret: string, agentId: string, config: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }>;
  /** The provider block pointing at the fixture model. */
  provider(): Record<string, unknown>;
  /** One JSON chat turn; throws unless the service answered 200. */
  chat(secret: string, agentId: string, conversationKey: string, message: string): Promise<ChatAnswer>;
  /** One SSE chat turn: the raw response. */
  chatStream(secret: string, agentId: string, body: unknown): Promise<Response>;
  /** The host folder of an account in the bucket (workspace paths are relative to it). */
  accountFolder(accountId: string): string;
  /** Names of the tools the model was offered in its most recent call. */
  lastOfferedTools(): string[];
  /** Description of a tool offered in the most recent model call. */
  lastToolDescription(name: string): string | undefined;
}

interface OfferedTool {
  name?: string;
  description?: string;
  function?: { name?: string; description?: string };
}

/** Tool results of a turn's messages, in order. */
export function toolResults(messages: ChatAnswer['messages']): ToolResultPart[] {
  return messages.flatMap((message) =>
    message.role === 'tool' && Array.isArray(message.content)
      ? (message.content as { type: string; toolName: string; output?: { type: string; value: unknown } }[])
          .filter((part) => part.type === 'tool-result')
          .map((part) => ({ toolName: part.toolName, output: part.output?.value }))
      : [],
  );
}

/**
 * Both services on loopback over real lowdb files, with a filesystem bucket folder under the
 * data folder (named by the infrastructure definition, as `serve` does), bubblewrap as
 * probed on this machine, and the fixture model.
 */
export async function startSandboxStack(): Promise<SandboxStack> {
  const folder = await temporaryFolder('harness-sandbox-');
  const model = await startFixtureModel({ apiKey: modelKey });
  const infrastructure = defineInfrastructure('test');
  const bucketFolder = path.join(folder.path, infrastructure.filesystemBucketName);
  await mkdir(bucketFolder, { recursive: true });
  const bubblewrap = await probeBubblewrap();
  const storage = new LowdbStorage(`${folder.path}/tables`);
  const core = createHarnessCore({
    storage,
    infrastructure,
    secrets: { adminSecret: testAdminSecret, configEncryptionSecret: testEncryptionSecret },
    toolEnvironment: { alphaBaseUrl: 'http://127.0.0.1:9' },
    modelMaxRetries: 0,
    bucketFolder,
    bubblewrap,
  });
  const accountApp = buildAccountService({ core });
  const agentApp = buildAgentService({ core, enableDirectApi: true });
  const accountUrl = await accountApp.listen({ port: 0, host: '127.0.0.1' });
  const agentUrl = await agentApp.listen({ port: 0, host: '127.0.0.1' });
  await core.start();

  const lastBodyTools = (): OfferedTool[] => {
    const body = model.calls().at(-1)?.body as { tools?: OfferedTool[] } | undefined;
    return body?.tools ?? [];
  };

  return {
    model,
    core,
    accountUrl,
    agentUrl,
    dataDir: folder.path,
    bucketFolder,
    bubblewrap,
    close: async () => {
      await Promise.all([accountApp.close(), agentApp.close()]);
      await core.stop();
      await storage.close();
      await model.close();
      await folder.remove();
    },
    createAccount: async (username) => {
      const response = await fetch(`${accountUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, description: 'sandbox test' }) });
      if (response.status !== 201) throw new Error(`account: ${response.status} ${await response.text()}`);
      return (await response.json()) as { accountId: string; secret: string };
    },
    putAgent: async (secret, agentId, config) => {
      const response = await fetch(`${accountUrl}/accounts/me/agents/${agentId}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: JSON.stringify({ config }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    provider: () => ({ openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture-model', api: 'chat' } }),
    chat: async (secret, agentId, conversationKey, message) => {
      const response = await fetch(`${agentUrl}/agents/${agentId}/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}`, accept: 'application/json' },
        body: JSON.stringify({ conversationKey, message }),
      });
      if (response.status !== 200) throw new Error(`chat: ${response.status} ${await response.text()}`);
      return (await response.json()) as ChatAnswer;
    },
    chatStream: (secret, agentId, body) =>
      fetch(`${agentUrl}/agents/${agentId}/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}`, accept: 'text/event-stream' },
        body: JSON.stringify(body),
      }),
    accountFolder: (accountId) => accountBucketFolder(bucketFolder, accountId),
    lastOfferedTools: () => lastBodyTools().map((entry) => entry.function?.name ?? entry.name ?? '').sort(),
    lastToolDescription: (name) => {
      const found = lastBodyTools().find((entry) => (entry.function?.name ?? entry.name) === name);
      return found?.function?.description ?? found?.description;
    },
  };
}
