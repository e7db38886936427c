import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../core/logger.js';
import { writeFileDurably } from '../core/storage/durable-file.js';
import { acceptsTcpConnections, findFreeTcpPort } from './free-tcp-port.js';
import { createNatsAuthority, type NatsAuthority } from './nats-authority.js';
import { findNatsServerBinary } from './nats-server-binary.js';
import { renderNatsServerConfig, serviceNatsUser, type NatsClusterConfig } from './nats-server-config.js';
import { NatsServerLog } from './nats-server-log.js';

export interface StartNatsServerOptions {
  /** The service's data folder; the server's files go to `<dataDir>/nats/`. */
  dataDir: string;
  /** Client port on 127.0.0.1; default a free port. */
  port?: number;
  /** WebSocket port on 127.0.0.1; default a free port (nats-server does not accept 0 here). */
  websocketPort?: number;
  /** The secret the operator and account keys are derived from (see `createNatsAuthority`). */
  stageSecret: string;
  /** The server's name; default `nats-server`. Its config, pid file and (in a cluster) JetStream store are named after it. */
  serverName?: string;
  /** Routes to the other servers of a local cluster (see `startNatsCluster`). */
  cluster?: NatsClusterConfig;
  logger: Logger;
  /** The `nats-server` executable; default the first one `findNatsServerBinary` finds. */
  binaryPath?: string;
  /** Where to look for the executable when `binaryPath` is not given. */
  searchFolders?: string[];
  jetStreamMaxMemoryBytes?: number;
  jetStreamMaxFileBytes?: number;
  /** How long the server may take to become ready (or to confirm a reload); default 15 s. */
  timeoutMilliseconds?: number;
}

/** How the service itself authenticates: a `harness-service` user JWT with every permission, and its nkey seed. */
export interface NatsServiceCredentials {
  user: string;
  jwt: string;
  seed: string;
}

/** A running nats-server child owned by the service. */
export interface EmbeddedNatsServer {
  /** `nats://127.0.0.1:<port>` */
  url: string;
  /** `ws://127.0.0.1:<websocketPort>` */
  websocketUrl: string;
  port: number;
  websocketPort: number;
  pid: number;
  configPath: string;
  serviceCredentials: NatsServiceCredentials;
  /** Signs users of the harness account (the service's credentials route uses the same keys). */
  authority: NatsAuthority;
  /** Stops the server (SIGTERM, then SIGKILL after the timeout); safe to call twice. */
  stop(): Promise<void>;
  /** Kills the server at once (SIGKILL), as a crash would: fault tests. */
  kill(): Promise<void>;
}

/** nats-server did not start, or did not reload; the message carries its last log lines. */
export class NatsServerStartError extends Error {
  constructor(message: string, readonly serverLog: string) {
    super(serverLog === '' ? message : `${message}\nnats-server said:\n${serverLog}`);
    this.name = 'NatsServerStartError';
  }
}

const defaultTimeoutMilliseconds = 15_000;
const startAttempts = 3;

interface RunningChild {
  child: ChildProcess;
  log: NatsServerLog;
  exited: Promise<void>;
  hasExited(): boolean;
}

function withTimeout<T>(promise: Promise<T>, milliseconds: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), milliseconds);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A nats-server left running by a service that was killed (SIGKILL leaves no time to stop
 * the child) still holds the ports and the JetStream store. Stop it, but only when its
 * command line names our config file, so an unrelated process that reused the pid is left alone.
 */
async function stopLeftoverServer(pidPath: string, configPath: string, logger: Logger): Promise<void> {
  let pid: number;
  try {
    pid = Number((await readFile(pidPath, 'utf8')).trim());
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  let commandLine: string;
  try {
    commandLine = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ');
  } catch {
    return;
  }
  if (!commandLine.includes('nats-server') || !commandLine.includes(configPath)) return;
  logger.warn({ pid }, 'stopping a nats-server left over from an earlier run on this data folder');
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; waited < 5_000 && isAlive(pid); waited += 50) await sleep(50);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}

function launch(binaryPath: string, configPath: string, pidPath: string, logger: Logger): RunningChild {
  // Its own process group: a terminal's Ctrl-C goes to the foreground group, and the service,
  // not the terminal, decides when its nats-server stops (after the gateway has drained).
  const child = spawn(binaryPath, ['-c', configPath, '-P', pidPath], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const log = new NatsServerLog(logger);
  if (child.stdout) log.follow(child.stdout);
  if (child.stderr) log.follow(child.stderr);
  let exited = false;
  const exitedPromise = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      logger.error({ component: 'nats-server', error: error.message }, 'nats-server could not be started');
      exited = true;
      resolve();
    });
    child.once('exit', () => {
      exited = true;
      resolve();
    });
  });
  return { child, log, exited: exitedPromise, hasExited: () => exited };
}

async function waitUntilReady(running: RunningChild, ports: number[], timeoutMilliseconds: number): Promise<void> {
  const ready = running.log.waitForLine([/Server is ready/]);
  const outcome = await withTimeout(
    Promise.race([ready.line.then(() => 'ready' as const), running.exited.then(() => 'exited' as const)]),
    timeoutMilliseconds,
    () => new NatsServerStartError(`nats-server did not become ready within ${timeoutMilliseconds} ms.`, running.log.recent()),
  ).finally(() => ready.cancel());
  if (outcome === 'exited') throw new NatsServerStartError(`nats-server exited during start (code ${running.child.exitCode}).`, running.log.recent());
  for (const port of ports) {
    if (!(await acceptsTcpConnections(port))) throw new NatsServerStartError(`nats-server reported ready but port ${port} refuses connections.`, running.log.recent());
  }
}

async function stopChild(running: RunningChild, timeoutMilliseconds: number): Promise<void> {
  if (running.hasExited()) return;
  running.child.kill('SIGTERM');
  try {
    await withTimeout(running.exited, timeoutMilliseconds, () => new Error('nats-server did not stop'));
  } catch {
    running.child.kill('SIGKILL');
    await running.exited;
  }
}

async function pickPorts(options: Pick<StartNatsServerOptions, 'port' | 'websocketPort'>): Promise<{ port: number; websocketPort: number }> {
  const port = options.port ?? (await findFreeTcpPort());
  let websocketPort = options.websocketPort ?? (await findFreeTcpPort());
  while (websocketPort === port) websocketPort = await findFreeTcpPort();
  return { port, websocketPort };
}

/**
 * Starts nats-server with a generated config (see `renderNatsServerConfig`) and waits
 * until both listeners accept connections. The child is stopped by `stop()`, and signalled
 * when the service process exits, so it does not outlive the service.
 */
export async function startNatsServer(options: StartNatsServerOptions): Promise<EmbeddedNatsServer> {
  const timeoutMilliseconds = options.timeoutMilliseconds ?? defaultTimeoutMilliseconds;
  const binaryPath = options.binaryPath ?? (await findNatsServerBinary(options.searchFolders));
  const authority = await createNatsAuthority(options.stageSecret);
  const natsFolder = join(options.dataDir, 'nats');
  await mkdir(natsFolder, { recursive: true, mode: 0o700 });
  const serverName = options.serverName ?? 'nats-server';
  const configPath = join(natsFolder, `${serverName}.conf`);
  const pidPath = join(natsFolder, `${serverName}.pid`);
  await stopLeftoverServer(pidPath, configPath, options.logger);
  const service = await authority.issueUser(serviceNatsUser);
  const serviceCredentials: NatsServiceCredentials = { user: serviceNatsUser, jwt: service.jwt, seed: service.seed };

  async function writeConfig(ports: { port: number; websocketPort: number }): Promise<void> {
    const config = renderNatsServerConfig({
      ...ports,
      dataDir: options.dataDir,
      ...(options.serverName === undefined ? {} : { serverName: options.serverName, storeDir: join(natsFolder, options.serverName, 'jetstream') }),
      ...(options.cluster === undefined ? {} : { cluster: options.cluster }),
      authority,
      jetStreamMaxMemoryBytes: options.jetStreamMaxMemoryBytes,
      jetStreamMaxFileBytes: options.jetStreamMaxFileBytes,
    });
    await writeFileDurably(configPath, config, 0o600);
  }

  let running: RunningChild | undefined;
  let ports = { port: 0, websocketPort: 0 };
  for (let attempt = 1; running === undefined; attempt += 1) {
    ports = await pickPorts(options);
    await writeConfig(ports);
    const candidate = launch(binaryPath, configPath, pidPath, options.logger);
    try {
      await waitUntilReady(candidate, [ports.port, ports.websocketPort], timeoutMilliseconds);
      running = candidate;
    } catch (error) {
      await stopChild(candidate, timeoutMilliseconds);
      const portTaken = /address already in use/i.test(candidate.log.recent());
      const portsChosenHere = options.port === undefined || options.websocketPort === undefined;
      if (!(portTaken && portsChosenHere && attempt < startAttempts)) throw error;
      options.logger.info({ attempt }, 'a chosen NATS port was taken meanwhile; trying other ports');
    }
  }
  const child = running;
  const stopOnServiceExit = (): void => {
    child.child.kill('SIGTERM');
  };
  process.once('exit', stopOnServiceExit);
  let stopping = false;
  void child.exited.then(() => {
    process.removeListener('exit', stopOnServiceExit);
    if (!stopping) options.logger.error({ code: child.child.exitCode, log: child.log.recent() }, 'nats-server exited unexpectedly');
  });
  options.logger.info({ port: ports.port, websocketPort: ports.websocketPort, pid: child.child.pid }, 'nats-server started');

  return {
    url: `nats://127.0.0.1:${ports.port}`,
    websocketUrl: `ws://127.0.0.1:${ports.websocketPort}`,
    port: ports.port,
    websocketPort: ports.websocketPort,
    pid: child.child.pid ?? 0,
    configPath,
    serviceCredentials,
    authority,
    async stop(): Promise<void> {
      stopping = true;
      await stopChild(child, timeoutMilliseconds);
      process.removeListener('exit', stopOnServiceExit);
      await rm(pidPath, { force: true });
    },
    async kill(): Promise<void> {
      stopping = true;
      if (!child.hasExited()) child.child.kill('SIGKILL');
      await child.exited;
      process.removeListener('exit', stopOnServiceExit);
      await rm(pidPath, { force: true });
    },
  };
}
