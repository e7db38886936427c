import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { writeFileAtomically } from '../atomic-write.js';
import { CliError } from '../cli-error.js';
import type { ServiceFolder } from '../deploy/detached-service.js';
import { stagesRoot } from '../deploy/stage-folder.js';

/**
 * The folder of the local cluster (`harness cluster up`): `HARNESS_CLUSTER_DIR`, else
 * `cluster` under the stages root (`.harness/cluster`). It holds what the cluster runs on and
 * the state file that says which processes run it.
 */
export interface ClusterPaths {
  root: string;
  /** `state.json`: pids and URLs of the running cluster (no password). */
  stateFile: string;
  /** The two secrets every replica shares, generated once and kept (mode 0600). */
  secretsFile: string;
  /** The PostgreSQL server's folder (owned by the `postgres` user when we are root). */
  postgresFolder: string;
  /** The host process's folder: its log, its ready file, the NATS servers' configs and stores. */
  hostFolder: string;
  hostLogFile: string;
  hostReadyFile: string;
  /** The workspace bucket every replica shares. */
  bucketFolder: string;
}

export function clusterPaths(environment: Record<string, string | undefined>): ClusterPaths {
  const root = environment.HARNESS_CLUSTER_DIR ? resolve(environment.HARNESS_CLUSTER_DIR) : join(stagesRoot(environment), 'cluster');
  const hostFolder = join(root, 'host');
  return {
    root,
    stateFile: join(root, 'state.json'),
    secretsFile: join(root, 'secrets.json'),
    postgresFolder: join(root, 'postgres'),
    hostFolder,
    hostLogFile: join(hostFolder, 'host.log'),
    hostReadyFile: join(hostFolder, 'ready.json'),
    bucketFolder: join(root, 'bucket'),
  };
}

/** The data folder and files of replica `index` (1-based). */
export function clusterReplicaFolder(paths: ClusterPaths, index: number): ServiceFolder {
  const path = join(paths.root, `replica-${index}`);
  return { path, pidFile: join(path, 'service.pid'), logFile: join(path, 'service.log'), addressFile: join(path, 'service-address.json'), lockFile: join(path, 'service.lock') };
}

/** One replica of the cluster. */
export interface ClusterReplica {
  index: number;
  accountServiceUrl: string;
  agentServiceUrl: string;
  pid: number;
  logFile: string;
}

/** What the host process runs besides the NATS servers: the fixtures of `npm start`. */
export interface ClusterFixtures {
  /** The fixture model's OpenAI-compatible base URL, and the key it wants (a fixture key, not a secret). */
  modelUrl: string;
  modelApiKey: string;
  searchUrl: string;
  mockWorkerUrl: string;
}

/** What the host process writes to its ready file once everything it runs answers. */
export interface HostReady {
  pid: number;
  nats: ClusterNats;
  fixtures: ClusterFixtures;
  /** The fake search service's key, handed to the replicas as `ALPHA_API_KEY`. */
  searchApiKey: string;
}

export interface ClusterNats {
  /** Client URLs, one per server; `NATS_URL` is them comma-separated. */
  urls: string[];
  websocketUrls: string[];
  pids: number[];
}

/**
 * The running cluster, as `state.json` keeps it and `cluster up --json` prints it. Written after
 * every part that starts, so a failed start (or `cluster down`) knows what to stop.
 */
export interface ClusterState {
  folder: string;
  stage: string;
  startedAt: string;
  /** The database URL without its password, and the postmaster's pid. */
  database?: { url: string; pid: number; port: number };
  /** The process that runs the fixtures and the NATS servers. */
  host?: { pid: number; logFile: string };
  nats?: ClusterNats;
  fixtures?: ClusterFixtures;
  replicas: ClusterReplica[];
}

export async function readClusterState(paths: ClusterPaths): Promise<ClusterState | undefined> {
  let text: string;
  try {
    text = await readFile(paths.stateFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as ClusterState;
  } catch {
    throw new CliError(`${paths.stateFile} is not valid JSON: stop what it started by hand, then remove it.`);
  }
}

export async function writeClusterState(paths: ClusterPaths, state: ClusterState): Promise<void> {
  await writeFileAtomically(paths.stateFile, `${JSON.stringify(state, null, 2)}\n`, 0o600);
}

export async function removeClusterState(paths: ClusterPaths): Promise<void> {
  await rm(paths.stateFile, { force: true });
}
