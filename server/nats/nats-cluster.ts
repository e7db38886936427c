import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import type { Logger } from '../core/logger.js';
import { findFreeTcpPort } from './free-tcp-port.js';
import type { NatsAuthority } from './nats-authority.js';
import { connectNats } from './nats-connection.js';
import type { NatsClusterConfig } from './nats-server-config.js';
import { startNatsServer, type EmbeddedNatsServer, type NatsServiceCredentials } from './nats-server-process.js';

export interface StartNatsClusterOptions {
  /** The data folder; server `i` keeps its config, pid and JetStream store under `<dataDir>/nats/`, named `harness-nats-<i>`. */
  dataDir: string;
  /** The secret the operator and account keys are derived from: the same for every server (see `createNatsAuthority`). */
  stageSecret: string;
  /** How many servers; default 3 (JetStream then keeps 3 replicas and survives the loss of one). */
  size?: number;
  /** The cluster's name; default `harness`. */
  name?: string;
  logger: Logger;
  binaryPath?: string;
  /** How long JetStream may take to elect its leader once every server runs; default 30 s. */
  timeoutMilliseconds?: number;
}

/** A local nats-server cluster: routes between the servers, clustered JetStream, WebSocket on each. */
export interface NatsCluster {
  /** The running servers, by index; a slot is undefined after `kill(index)` until `restart(index)`. */
  servers: (EmbeddedNatsServer | undefined)[];
  /** Every server's client URL, comma-separated: the form `NATS_URL` takes for a cluster. */
  url: string;
  /** Every server's WebSocket URL, comma-separated. */
  websocketUrl: string;
  serviceCredentials: NatsServiceCredentials;
  authority: NatsAuthority;
  /** Kills server `index` at once (SIGKILL), as a crash would. */
  kill(index: number): Promise<void>;
  /** Starts server `index` again on its old ports and store. */
  restart(index: number): Promise<void>;
  /** Stops every server. */
  stop(): Promise<void>;
}

interface ServerSlot {
  serverName: string;
  port: number;
  websocketPort: number;
  cluster: NatsClusterConfig;
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await findFreeTcpPort());
  return [...ports];
}

/** Resolves once JetStream answers account requests, which needs a meta leader elected by the servers. */
async function waitForJetStream(url: string, credentials: NatsServiceCredentials, logger: Logger, timeoutMilliseconds: number): Promise<void> {
  const connection = await connectNats({ url, ...credentials, name: 'harness-cluster-check', logger });
  try {
    const deadline = Date.now() + timeoutMilliseconds;
    for (;;) {
      try {
        await (await jetstreamManager(connection, { timeout: 2_000 })).getAccountInfo();
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`JetStream of the NATS cluster did not become ready within ${timeoutMilliseconds} ms: ${(error as Error).message}`, { cause: error });
        await sleep(200);
      }
    }
  } finally {
    await connection.close();
  }
}

/**
 * Starts a local cluster of nats-server processes on loopback (development, tests,
 * `harness cluster up`): each with a client port, a WebSocket port and a route port, the
 * same operator and accounts (decentralized JWT authentication, as `startNatsServer`), and
 * clustered JetStream. Resolves once JetStream has a leader.
 */
export async function startNatsCluster(options: StartNatsClusterOptions): Promise<NatsCluster> {
  const size = options.size ?? 3;
  if (!Number.isInteger(size) || size < 1) throw new Error(`A NATS cluster needs at least one server (got ${size}).`);
  const name = options.name ?? 'harness';
  const ports = await distinctFreePorts(size * 3);
  const routePorts = ports.slice(size * 2);
  const routes = routePorts.map((port) => `nats-route://127.0.0.1:${port}`);
  const slots: ServerSlot[] = Array.from({ length: size }, (_, index) => ({
    serverName: `harness-nats-${index + 1}`,
    port: ports[index]!,
    websocketPort: ports[size + index]!,
    cluster: { name, port: routePorts[index]!, routes: routes.filter((_, other) => other !== index) },
  }));
  const start = (slot: ServerSlot): Promise<EmbeddedNatsServer> =>
    startNatsServer({
      dataDir: options.dataDir,
      stageSecret: options.stageSecret,
      serverName: slot.serverName,
      port: slot.port,
      websocketPort: slot.websocketPort,
      ...(size > 1 ? { cluster: slot.cluster } : {}),
      logger: options.logger,
      ...(options.binaryPath === undefined ? {} : { binaryPath: options.binaryPath }),
    });
  const started = await Promise.allSettled(slots.map(start));
  const servers = started.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : undefined));
  const failure = started.find((outcome) => outcome.status === 'rejected');
  if (failure !== undefined) {
    await Promise.allSettled(servers.map((server) => server?.stop()));
    throw failure.reason;
  }
  const first = servers[0]!;
  const url = slots.map((slot) => `nats://127.0.0.1:${slot.port}`).join(',');
  await waitForJetStream(url, first.serviceCredentials, options.logger, options.timeoutMilliseconds ?? 30_000).catch(async (error: unknown) => {
    await Promise.allSettled(servers.map((server) => server?.stop()));
    throw error;
  });
  return {
    servers,
    url,
    websocketUrl: slots.map((slot) => `ws://127.0.0.1:${slot.websocketPort}`).join(','),
    serviceCredentials: first.serviceCredentials,
    authority: first.authority,
    async kill(index) {
      const server = servers[index];
      servers[index] = undefined;
      await server?.kill();
    },
    async restart(index) {
      if (servers[index] !== undefined) return;
      servers[index] = await start(slots[index]!);
    },
    async stop() {
      await Promise.allSettled(servers.map((server) => server?.stop()));
    },
  };
}
