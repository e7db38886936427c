import { setTimeout as sleep } from 'node:timers/promises';
import { createInbox, headers as natsHeaders, type Msg, type NatsConnection, type Subscription } from '@nats-io/nats-core';
import type { UIMessageChunk } from 'ai';
import { startFixtureModel, type FixtureModelServer } from '../../fixtures/model-server/fixture-model-server.js';
import { silentLogger } from '../../server/core/logger.js';
import { connectNats } from '../../server/nats/nats-connection.js';
import { isFinalChunk, natsAuthenticationOf, type NatsCredentialsView, replayEndHeader, sequenceHeader, turnIdHeader } from '../../server/nats/nats-protocol.js';
import type { NatsSettings } from '../../server/nats/nats-settings.js';
import { serve, type RunningServices } from '../../server/serve.js';
import { temporaryFolder } from './temporary-folder.js';
import { testDatabaseUrl } from './test-storage.js';

export const natsModelKey = 'sk-fixture-nats-key-0123456789';

export interface NatsTestAccount {
  accountId: string;
  secret: string;
  nats: NatsCredentialsView;
}

/** One message a client got on its inbox: a chunk with its headers, or the end of a replay. */
export interface ReceivedChunk {
  chunk?: UIMessageChunk;
  sequence?: number;
  turnId?: string;
  /** Set on the empty message that ends a replay answer: the last sequence sent. */
  replayEnd?: number;
}

export interface NatsStack {
  model: FixtureModelServer;
  services: RunningServices;
  accountUrl: string;
  agentUrl: string;
  createAccount(username: string): Promise<NatsTestAccount>;
  /** An account with an agent `echo` on the fixture model, the agent most tests talk to. */
  createAccountWithEcho(username: string): Promise<NatsTestAccount>;
  putAgent(secret: string, agentId: string, config: Record<string, unknown>): Promise<void>;
  provider(): Record<string, unknown>;
  /** The agent service's `GET /` answer. */
  root(): Promise<Record<string, unknown>>;
  /** Resolves once `GET /` says `nats: "connected"`. */
  waitForNats(): Promise<void>;
  /** A client of the account, over TCP or WebSocket. Closed by `close()`. */
  connect(account: NatsTestAccount, transport?: 'tcp' | 'websocket'): Promise<NatsConnection>;
  close(): Promise<void>;
}

/** The service through `serve()` with its own embedded nats-server, plus the fixture model. */
export async function startNatsStack(options: { nats?: NatsSettings } = {}): Promise<NatsStack> {
  const folder = await temporaryFolder('harness-nats-test-');
  const model = await startFixtureModel({ apiKey: natsModelKey });
  const services = await serve({ accountPort: 0, agentPort: 0, dataDir: folder.path, databaseUrl: await testDatabaseUrl(folder.path), logger: false, nats: options.nats ?? { mode: 'embedded', required: true } });
  const connections: NatsConnection[] = [];
  const stack: NatsStack = {
    model,
    services,
    accountUrl: services.accountUrl,
    agentUrl: services.agentUrl,
    async createAccount(username) {
      const created = await fetch(`${services.accountUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, description: 'nats test' }) });
      if (created.status !== 201) throw new Error(`account: ${created.status} ${await created.text()}`);
      const { accountId, secret } = (await created.json()) as { accountId: string; secret: string };
      const credentials = await fetch(`${services.accountUrl}/accounts/me/nats`, { headers: { authorization: `Bearer ${secret}` } });
      if (credentials.status !== 200) throw new Error(`nats credentials: ${credentials.status} ${await credentials.text()}`);
      return { accountId, secret, nats: (await credentials.json()) as NatsCredentialsView };
    },
    async createAccountWithEcho(username) {
      const account = await stack.createAccount(username);
      await stack.putAgent(account.secret, 'echo', { provider: stack.provider() });
      return account;
    },
    async putAgent(secret, agentId, config) {
      const response = await fetch(`${services.accountUrl}/accounts/me/agents/${agentId}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: JSON.stringify({ config }),
      });
      if (response.status >= 300) throw new Error(`agent: ${response.status} ${await response.text()}`);
    },
    provider: () => ({ openai: { apiKey: natsModelKey, baseURL: model.baseURL, model: 'fixture-model', api: 'responses' } }),
    root: async () => (await (await fetch(`${services.agentUrl}/`)).json()) as Record<string, unknown>,
    async waitForNats() {
      for (let attempt = 0; attempt < 200; attempt += 1) {
        if ((await stack.root()).nats === 'connected') return;
        await sleep(50);
      }
      throw new Error('NATS never became connected');
    },
    async connect(account, transport = 'tcp') {
      const url = transport === 'tcp' ? account.nats.url : account.nats.websocketUrl;
      if (url === null) throw new Error(`no ${transport} URL`);
      const connection = await connectNats({ url, ...natsAuthenticationOf(account.nats), inboxPrefix: account.nats.inboxPrefix, name: `test-${account.accountId}`, logger: silentLogger });
      connections.push(connection);
      return connection;
    },
    async close() {
      await Promise.allSettled(connections.map((connection) => connection.close()));
      await services.close();
      await model.close();
      await folder.remove();
    },
  };
  return stack;
}

function received(message: Msg): ReceivedChunk {
  const end = message.headers?.get(replayEndHeader);
  if (end) return { replayEnd: Number(end) };
  const sequence = message.headers?.get(sequenceHeader);
  const turnId = message.headers?.get(turnIdHeader);
  return { chunk: message.json<UIMessageChunk>(), ...(sequence ? { sequence: Number(sequence) } : {}), ...(turnId ? { turnId } : {}) };
}

/** A subscription on a fresh subject in the account's inbox, read message by message. */
export class TestInbox {
  readonly subject: string;
  private readonly subscription: Subscription;
  private readonly iterator: AsyncIterator<Msg>;

  constructor(
    private readonly connection: NatsConnection,
    inboxPrefix: string,
  ) {
    this.subject = createInbox(inboxPrefix);
    this.subscription = connection.subscribe(this.subject);
    this.iterator = this.subscription[Symbol.asyncIterator]();
  }

  /** Publishes a request with this inbox as its reply subject. */
  async request(subject: string, secret: string | undefined, body: unknown): Promise<void> {
    const headers = natsHeaders();
    if (secret !== undefined) headers.set('Authorization', `Bearer ${secret}`);
    this.connection.publish(subject, JSON.stringify(body), { reply: this.subject, headers });
    await this.connection.flush();
  }

  /** The next message, or an error after `timeoutMilliseconds`. */
  async next(timeoutMilliseconds = 15_000): Promise<ReceivedChunk> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no message on ${this.subject} within ${timeoutMilliseconds} ms`)), timeoutMilliseconds);
    });
    try {
      const result = await Promise.race([this.iterator.next(), timeout]);
      if (result.done) throw new Error('the inbox subscription ended');
      return received(result.value);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Messages up to and including the first one `stop` accepts. */
  async readUntil(stop: (message: ReceivedChunk) => boolean, timeoutMilliseconds?: number): Promise<ReceivedChunk[]> {
    const messages: ReceivedChunk[] = [];
    for (;;) {
      const message = await this.next(timeoutMilliseconds);
      messages.push(message);
      if (stop(message)) return messages;
    }
  }

  /** Messages up to a finish chunk (any status). */
  untilFinish(): Promise<ReceivedChunk[]> {
    return this.readUntil((message) => message.chunk?.type === 'finish');
  }

  /** Messages up to a finish chunk that ends the stream for good (not `waiting_async_tools`). */
  untilFinal(): Promise<ReceivedChunk[]> {
    return this.readUntil((message) => isFinalChunk(message.chunk));
  }

  /** A replay answer: every message up to the end marker. */
  untilReplayEnd(): Promise<ReceivedChunk[]> {
    return this.readUntil((message) => message.replayEnd !== undefined);
  }

  /** Whether a message arrives within the time (for "nothing arrives" checks). */
  async receivesWithin(milliseconds: number): Promise<boolean> {
    try {
      await this.next(milliseconds);
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    this.subscription.unsubscribe();
  }
}

/** The text of the `text-delta` chunks, joined. */
export function textOf(messages: ReceivedChunk[]): string {
  return messages.map((message) => (message.chunk?.type === 'text-delta' ? message.chunk.delta : '')).join('');
}

/** The finish chunk's status. */
export function finishStatus(messages: ReceivedChunk[]): unknown {
  const finish = messages.findLast((message) => message.chunk?.type === 'finish')?.chunk as { messageMetadata?: { status?: unknown } } | undefined;
  return finish?.messageMetadata?.status;
}
