import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { CliError } from '../cli-error.js';
import { startDetachedService, type HarnessCommand } from '../deploy/detached-service.js';
import { readFileTail } from '../deploy/file-tail.js';
import { terminateProcess } from '../deploy/process-control.js';
import { printableDatabaseUrl } from '../deploy/replica-inputs.js';
import { loadClusterSecrets, type ClusterSecrets } from './cluster-secrets.js';
import { clusterReplicaFolder, readClusterState, writeClusterState, type ClusterPaths, type ClusterState, type HostReady } from './cluster-state.js';
import { isClusterProcess, recordedProcesses, stopCluster } from './cluster-stop.js';
import { packageEntryCommand } from './harness-command.js';
import { startLocalPostgres, type LocalPostgres } from './local-postgres.js';

export interface ClusterUpOptions {
  paths: ClusterPaths;
  command: HarnessCommand;
  environment: Record<string, string | undefined>;
  /** How many replicas; default 3. */
  replicas?: number;
  /** How long each part may take to start. Default 60 s. */
  readyTimeoutMs?: number;
}

export interface ClusterUpResult {
  state: ClusterState;
  /** True when the cluster was already running and nothing was started. */
  alreadyRunning: boolean;
}

/** The stage name the cluster's replicas run as. */
export const clusterStage = 'cluster';
const databaseName = 'harness';

/** Which of the recorded processes still run. */
async function liveParts(paths: ClusterPaths, state: ClusterState): Promise<{ part: string; pid: number; alive: boolean }[]> {
  return Promise.all(recordedProcesses(state).map(async (entry) => ({ ...entry, alive: await isClusterProcess(paths, entry.part, entry.pid) })));
}

async function createDatabase(postgres: LocalPostgres): Promise<string> {
  const client = new pg.Client({ connectionString: postgres.adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [databaseName]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${databaseName}`);
  } finally {
    await client.end();
  }
  return postgres.urlFor(databaseName);
}

/** Starts the host (`scripts/cluster-host.ts`) detached and waits for its ready file. */
async function startHost(paths: ClusterPaths, environment: Record<string, string | undefined>, timeoutMs: number): Promise<HostReady> {
  await mkdir(paths.hostFolder, { recursive: true, mode: 0o700 });
  await rm(paths.hostReadyFile, { force: true });
  const logFd = openSync(paths.hostLogFile, 'a', 0o600);
  const command = packageEntryCommand('scripts/cluster-host');
  let child;
  try {
    child = spawn(command.executable, [...command.args, '--folder', paths.root], { cwd: command.cwd, detached: true, stdio: ['ignore', logFd, logFd], env: environment as NodeJS.ProcessEnv });
  } finally {
    closeSync(logFd);
  }
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  });
  child.unref();
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const text = await readFile(paths.hostReadyFile, 'utf8').catch(() => undefined);
    if (text !== undefined) return JSON.parse(text) as HostReady;
    if (exited !== undefined) break;
    await sleep(100);
  }
  if (exited === undefined && child.pid !== undefined) await terminateProcess(child.pid, 5_000).catch(() => undefined);
  throw new CliError(`The cluster host (fixtures and NATS servers) ${exited ?? `was not ready within ${Math.round(timeoutMs / 1000)} s`}. Last lines of ${paths.hostLogFile}:\n${await readFileTail(paths.hostLogFile, 40)}`);
}

/** The environment of every replica: one database, one NATS cluster, one bucket, the same secrets. */
function replicaEnvironment(base: Record<string, string | undefined>, shared: { databaseUrl: string; secrets: ClusterSecrets; host: HostReady; bucketFolder: string }): Record<string, string | undefined> {
  const environment: Record<string, string | undefined> = { ...base };
  // Settings of the caller's own service that would split the replicas or turn NATS off.
  for (const name of ['HARNESS_DATA_DIR', 'HARNESS_REPLICA_ID', 'ENABLE_WEBSOCKET', 'NATS_TOKEN', 'ACCOUNT_PORT', 'AGENT_PORT']) delete environment[name];
  return {
    ...environment,
    SST_STAGE: clusterStage,
    HARNESS_DATABASE_URL: shared.databaseUrl,
    HARNESS_ADMIN_SECRET: shared.secrets.adminSecret,
    HARNESS_CONFIG_ENCRYPTION_SECRET: shared.secrets.configEncryptionSecret,
    NATS_URL: shared.host.nats.urls.join(','),
    NATS_AUTH: 'jwt',
    HARNESS_BUCKET_DIR: shared.bucketFolder,
    ALPHA_BASE_URL: shared.host.fixtures.searchUrl,
    ALPHA_API_KEY: shared.host.searchApiKey,
    MOCK_WORKER_URL: shared.host.fixtures.mockWorkerUrl,
  };
}

/**
 * `harness cluster up`: PostgreSQL, the host (fixtures and a 3-server NATS cluster) and the
 * replicas, each detached, on loopback and free ports. The state file is written after every
 * part, and a failure stops what already started. A cluster that is already running is
 * reported, not started twice.
 */
export async function clusterUp(options: ClusterUpOptions): Promise<ClusterUpResult> {
  const { paths, command } = options;
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  const previous = await readClusterState(paths);
  if (previous !== undefined) {
    const parts = await liveParts(paths, previous);
    if (parts.length > 0 && parts.every((part) => part.alive)) return { state: previous, alreadyRunning: true };
    if (parts.some((part) => part.alive)) {
      const gone = parts.filter((part) => !part.alive).map((part) => part.part).join(', ');
      throw new CliError(`The cluster in ${paths.root} is partly running (${gone} stopped). Run harness cluster down, then harness cluster up again.`);
    }
    await stopCluster(paths, previous, { timeoutMs: 5_000 });
  }
  await mkdir(paths.root, { recursive: true, mode: 0o700 });
  await mkdir(paths.bucketFolder, { recursive: true, mode: 0o700 });
  const secrets = await loadClusterSecrets(paths, options.environment);
  const state: ClusterState = { folder: paths.root, stage: clusterStage, startedAt: new Date().toISOString(), replicas: [] };
  await writeClusterState(paths, state);
  try {
    const postgres = await startLocalPostgres({ folder: paths.postgresFolder });
    state.database = { url: printableDatabaseUrl(postgres.urlFor(databaseName)), pid: postgres.pid, port: postgres.port };
    await writeClusterState(paths, state);
    const databaseUrl = await createDatabase(postgres);

    const host = await startHost(paths, { ...options.environment, HARNESS_CLUSTER_DIR: paths.root }, timeoutMs);
    state.host = { pid: host.pid, logFile: paths.hostLogFile };
    state.nats = host.nats;
    state.fixtures = host.fixtures;
    await writeClusterState(paths, state);

    const environment = replicaEnvironment(options.environment, { databaseUrl, secrets, host, bucketFolder: paths.bucketFolder });
    let stateWrites: Promise<void> = Promise.resolve();
    const startReplica = async (index: number): Promise<void> => {
      const folder = clusterReplicaFolder(paths, index);
      const started = await startDetachedService({
        folder,
        command,
        stage: clusterStage,
        accountPort: 0,
        agentPort: 0,
        environment,
        readyTimeoutMs: timeoutMs,
        banner: (startedAt) => `--- harness cluster up: starting replica ${index} at ${startedAt} ---`,
        label: `Replica ${index}`,
      });
      state.replicas.push({ index, accountServiceUrl: started.accountUrl, agentServiceUrl: started.agentUrl, pid: started.pid, logFile: folder.logFile });
      state.replicas.sort((left, right) => left.index - right.index);
      // Replicas 2..N finish starting in any order: their writes go one after another, each of the
      // state as it is then, so a slower earlier write cannot land last and drop a replica.
      stateWrites = stateWrites.then(() => writeClusterState(paths, state));
      await stateWrites;
    };
    // The first alone (it migrates the database), then the others together: they find it done.
    await startReplica(1);
    const others = Array.from({ length: (options.replicas ?? 3) - 1 }, (_, offset) => startReplica(offset + 2));
    const outcomes = await Promise.allSettled(others);
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  } catch (error) {
    await stopCluster(paths, state, { timeoutMs: 5_000 }).catch(() => undefined);
    throw error;
  }
  return { state, alreadyRunning: false };
}
