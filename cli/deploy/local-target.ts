import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../cli-error.js';
import type { DeployInputs } from './deploy-inputs.js';
import { readJsonFile, runningServicePid, startDetachedService, stopDetachedService, type HarnessCommand, type ServiceFolder, type StartedServices } from './detached-service.js';
import { isProcessAlive, type TerminateResult } from './process-control.js';
import type { StageFolder } from './stage-folder.js';

export type { ServiceRecord, StartedServices } from './detached-service.js';

/**
 * The local deploy target: each replica of a stage is one detached `node dist/cli/main.js
 * serve` process, which outlives the deploy command. Replica 1 runs on the stage folder
 * itself (as a stage of one replica always did); replica N > 1 on `<stage>/replica-N/`, its
 * own data folder with its own pid, log and address files. The pid file says which process a
 * replica is; its lock file or command line confirms it before any signal.
 */

export interface ReplicaStopResult extends TerminateResult {
  index: number;
  pid: number;
}

/** Replica 1's figures at the top level (what `harness stop` always printed), then every replica's. */
export interface StopResult extends TerminateResult {
  pid: number;
  replicas: ReplicaStopResult[];
}

/** A replica's started process and URLs. */
export interface StartedReplica extends StartedServices {
  index: number;
}

/** The folder of replica `index` (1-based) of a stage. */
export function replicaFolder(folder: StageFolder, index: number): ServiceFolder {
  if (index === 1) return folder;
  const path = join(folder.path, `replica-${index}`);
  return { path, pidFile: join(path, 'service.pid'), logFile: join(path, 'service.log'), addressFile: join(path, 'service-address.json'), lockFile: join(path, 'service.lock') };
}

/** The replicas a stage has folders for, in order: 1 (the stage folder) when it exists, then each `replica-N`. */
export async function stageReplicaIndexes(folder: StageFolder): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(folder.path);
  } catch {
    return [];
  }
  const others = names.map((name) => /^replica-(\d+)$/.exec(name)?.[1]).filter((index): index is string => index !== undefined).map(Number).filter((index) => index > 1);
  return [1, ...others.sort((left, right) => left - right)];
}

/** A live process that holds the lock but was not started by deploy (`harness serve`, `npm start`). */
async function foreignLockHolder(folder: StageFolder, ownPid: number | undefined): Promise<number | undefined> {
  const lock = await readJsonFile<{ pid?: number; host?: string }>(folder.lockFile);
  if (typeof lock?.pid !== 'number' || lock.pid === ownPid) return undefined;
  if (lock.host !== undefined && lock.host !== hostname()) return lock.pid;
  return isProcessAlive(lock.pid) ? lock.pid : undefined;
}

/**
 * Stops every replica of the stage: SIGTERM, then SIGKILL after `timeoutMs`, all at once.
 * Undefined when nothing was running. Refuses when another process holds the stage's data folder.
 */
export async function stopStage(folder: StageFolder, options: { timeoutMs: number }): Promise<StopResult | undefined> {
  const foreign = await foreignLockHolder(folder, await runningServicePid(folder));
  if (foreign !== undefined) {
    throw new CliError(`The stage folder ${folder.path} is in use by process ${foreign}, which harness deploy did not start (harness serve or npm start?). Stop that process first.`);
  }
  const indexes = await stageReplicaIndexes(folder);
  const results = await Promise.all(indexes.map(async (index) => {
    const stopped = await stopDetachedService(replicaFolder(folder, index), options.timeoutMs);
    return stopped === undefined ? undefined : { index, ...stopped };
  }));
  const replicas = results.filter((result): result is ReplicaStopResult => result !== undefined);
  const first = replicas[0];
  if (first === undefined) return undefined;
  return { pid: first.pid, signal: first.signal, elapsedMs: first.elapsedMs, replicas };
}

export interface StartStageOptions {
  folder: StageFolder;
  /** The package root: the services run from its `dist/`. */
  projectRoot: string;
  inputs: DeployInputs;
  /** How many replicas; default 1. */
  replicas?: number;
  /** The environment the services get (the deploy inputs travel in it). */
  environment: Record<string, string | undefined>;
  /** How long to wait for `GET /` to answer on both services, per replica. */
  readyTimeoutMs: number;
}

/** Replica `index`'s port: the stage's port plus `index - 1`, or 0 (a free one) when the stage's is 0. */
export function replicaPort(port: number, index: number): number {
  return port === 0 ? 0 : port + index - 1;
}

/**
 * Starts the stage's replicas detached, one after another (the first migrates the database,
 * the others find it done), and resolves once `GET /` answers 200 on every one. When one fails,
 * those already started are stopped again.
 */
export async function startStage(options: StartStageOptions): Promise<StartedReplica[]> {
  const { folder, projectRoot, inputs } = options;
  const entry = join(projectRoot, 'dist', 'cli', 'main.js');
  if (!existsSync(entry)) throw new CliError(`${entry} does not exist: deploy without --skip-build, or run npm run build.`);
  const command: HarnessCommand = { executable: process.execPath, args: [entry], cwd: projectRoot };
  const count = options.replicas ?? 1;
  const environment: Record<string, string | undefined> = { ...options.environment, SST_STAGE: inputs.stage };
  // The stage folder is the data folder; a HARNESS_DATA_DIR meant for `harness serve` must not move it.
  delete environment.HARNESS_DATA_DIR;
  // Every replica works on the one bucket folder (replicas on several machines need a shared filesystem there).
  environment.HARNESS_BUCKET_DIR ||= folder.bucketFolder;
  const started: StartedReplica[] = [];
  try {
    for (let index = 1; index <= count; index += 1) {
      const service = await startDetachedService({
        folder: replicaFolder(folder, index),
        command,
        stage: inputs.stage,
        accountPort: replicaPort(inputs.accountPort, index),
        agentPort: replicaPort(inputs.agentPort, index),
        environment,
        readyTimeoutMs: options.readyTimeoutMs,
        banner: (startedAt) => `--- harness deploy: starting stage ${inputs.stage}${count > 1 ? ` replica ${index}` : ''} at ${startedAt} ---`,
        label: count > 1 ? `Replica ${index}` : 'The services',
      });
      started.push({ index, ...service });
    }
  } catch (error) {
    await Promise.allSettled(started.map((replica) => stopDetachedService(replicaFolder(folder, replica.index), 5_000)));
    throw error;
  }
  return started;
}
