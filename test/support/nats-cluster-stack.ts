import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { expect } from 'vitest';
import { startFixtureModel, type FixtureModelServer } from '../../fixtures/model-server/fixture-model-server.js';
import { silentLogger, type Logger } from '../../server/core/logger.js';
import { startNatsCluster, type NatsCluster } from '../../server/nats/nats-cluster.js';
import { type ConnectNatsOptions, connectNats } from '../../server/nats/nats-connection.js';
import { natsAuthenticationOf } from '../../server/nats/nats-protocol.js';
import { deriveNatsSecret, startNatsService, type NatsService } from '../../server/nats/nats-service.js';
import { replayStreamName } from '../../server/nats/stream-replay.js';
import { natsModelKey, type NatsTestAccount } from './nats-stack.js';
import { temporaryFolder } from './temporary-folder.js';
import { bearer, createAccount, startTestServices, testAdminSecret, type TestServices } from './test-services.js';

/** A logger that keeps the messages it was given, to tell which replica did what. */
export function recordingLogger(): Logger & { messages: string[] } {
  const messages: string[] = [];
  const record = (_fields: Record<string, unknown>, message?: string): void => {
    if (message !== undefined) messages.push(message);
  };
  return { messages, info: record, warn: record, error: record, debug: record };
}

export interface NatsClusterStack {
  cluster: NatsCluster;
  services: TestServices;
  model: FixtureModelServer;
  /** Gateway replicas on the one core, each connected to the cluster through a different server first. */
  replicas: { service: NatsService; logger: ReturnType<typeof recordingLogger> }[];
  createAccount(username: string): Promise<NatsTestAccount>;
  /** A client of the account, given every server of the cluster. Closed by `close()`. */
  connect(account: NatsTestAccount): Promise<NatsConnection>;
  close(): Promise<void>;
}

/**
 * A local 3-server NATS cluster (JWT authentication, the operator derived from the test admin
 * secret), one core on lowdb, and `replicaCount` gateways on that core, as several `harness
 * serve` replicas would be on shared storage. Each gateway lists the servers in a different
 * order, so they start on different servers.
 */
export async function startNatsClusterStack(options: { replicaCount?: number } = {}): Promise<NatsClusterStack> {
  const folder = await temporaryFolder('harness-nats-cluster-');
  const cluster = await startNatsCluster({ dataDir: folder.path, stageSecret: deriveNatsSecret(testAdminSecret, 'stage-secret'), logger: silentLogger });
  const model = await startFixtureModel({ apiKey: natsModelKey });
  const services = await startTestServices();
  const urls = cluster.url.split(',');
  const replicas = await Promise.all(
    Array.from({ length: options.replicaCount ?? 2 }, async (_, index) => {
      const logger = recordingLogger();
      const rotated = [...urls.slice(index % urls.length), ...urls.slice(0, index % urls.length)].join(',');
      const service = await startNatsService({
        settings: { mode: 'external', url: rotated, transport: 'tcp', authentication: 'jwt' },
        core: services.core,
        dataDir: services.dataDir,
        adminSecret: testAdminSecret,
        logger,
      });
      return { service, logger };
    }),
  );
  const connections: NatsConnection[] = [];
  return {
    cluster,
    services,
    model,
    replicas,
    async createAccount(username) {
      const { accountId, secret } = await createAccount(services.accountApp, username);
      const agent = await services.accountApp.inject({
        method: 'PUT',
        url: '/accounts/me/agents/echo',
        headers: bearer(secret),
        payload: { config: { provider: { openai: { apiKey: natsModelKey, baseURL: model.baseURL, model: 'fixture-model', api: 'responses' } } } },
      });
      if (agent.statusCode >= 300) throw new Error(`agent: ${agent.statusCode} ${agent.body}`);
      const nats = await replicas[0]!.service.credentials(accountId);
      if (nats === undefined) throw new Error('NATS is disabled');
      return { accountId, secret, nats };
    },
    async connect(account) {
      const connection = await connectNats({ url: cluster.url, ...natsAuthenticationOf(account.nats), inboxPrefix: account.nats.inboxPrefix, name: `test-${account.accountId}`, logger: silentLogger, reconnectWaitMilliseconds: 50, maxReconnectWaitMilliseconds: 500 });
      connections.push(connection);
      return connection;
    },
    async close() {
      await Promise.allSettled(connections.map((connection) => connection.close()));
      await Promise.allSettled(replicas.map((replica) => replica.service.close()));
      await services.close();
      await model.close();
      await cluster.stop();
      await folder.remove();
    },
  };
}

/** Resolves once every replica's gateway is subscribed. */
export async function waitForReplicas(stack: NatsClusterStack): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    if (stack.replicas.every((replica) => replica.service.state() === 'connected')) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the NATS gateways never became connected');
}

/** Looks at the chunk stream from outside the service, as a cluster's operator would: it keeps 3 replicas (a leader and 2 others). */
export async function expectChunkStreamOnThreeServers(connectOptions: Omit<ConnectNatsOptions, 'name' | 'logger'>): Promise<void> {
  const operator = await connectNats({ ...connectOptions, name: 'test-inspect-stream', logger: silentLogger });
  try {
    const info = await (await jetstreamManager(operator)).streams.info(replayStreamName);
    expect(info.config.num_replicas).toBe(3);
    expect(info.cluster?.replicas ?? []).toHaveLength(2);
  } finally {
    await operator.close();
  }
}
