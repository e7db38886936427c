import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CliError } from '../cli-error.js';
import type { DeployInputs } from './deploy-inputs.js';
import { readFileTail } from './file-tail.js';
import { isProcessAlive, terminateProcess, type TerminateResult } from './process-control.js';
import type { StageFolder } from './stage-folder.js';

/**
 * The local deploy target: the stage's services run as one detached `node dist/cli/main.js
 * serve` process on the stage folder, which outlives the deploy command. The pid file
 * says which process that is; the service's own lock file confirms it before any signal.
 */

/** What `service.pid` holds. */
export interface ServiceRecord {
  pid: number;
  startedAt: string;
}

export interface StartedServices extends ServiceRecord {
  accountUrl: string;
  agentUrl: string;
}

export interface StopResult extends TerminateResult {
  pid: number;
}

const logTailLines = 40;

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The pid of the running services of this stage, or undefined when none runs. */
export async function runningServicePid(folder: StageFolder): Promise<number | undefined> {
  const record = await readJson<ServiceRecord>(folder.pidFile);
  if (record === undefined || !Number.isInteger(record.pid) || !isProcessAlive(record.pid)) return undefined;
  // The pid alone could be a reused number after a reboot: only the process that holds the
  // stage's data-folder lock is the stage's service.
  const lock = await readJson<{ pid?: number; host?: string }>(folder.lockFile);
  return lock?.pid === record.pid ? record.pid : undefined;
}

/** A live process that holds the lock but was not started by deploy (`harness serve`, `npm start`). */
async function foreignLockHolder(folder: StageFolder, ownPid: number | undefined): Promise<number | undefined> {
  const lock = await readJson<{ pid?: number; host?: string }>(folder.lockFile);
  if (typeof lock?.pid !== 'number' || lock.pid === ownPid) return undefined;
  if (lock.host !== undefined && lock.host !== hostname()) return lock.pid;
  return isProcessAlive(lock.pid) ? lock.pid : undefined;
}

/**
 * Stops the stage's services: SIGTERM, then SIGKILL after `timeoutMs`. Undefined when
 * nothing was running. Refuses when another process holds the stage's data folder.
 */
export async function stopStage(folder: StageFolder, options: { timeoutMs: number }): Promise<StopResult | undefined> {
  const pid = await runningServicePid(folder);
  const foreign = await foreignLockHolder(folder, pid);
  if (foreign !== undefined) {
    throw new CliError(`The stage folder ${folder.path} is in use by process ${foreign}, which harness deploy did not start (harness serve or npm start?). Stop that process first.`);
  }
  if (pid === undefined) {
    await rm(folder.pidFile, { force: true });
    return undefined;
  }
  const result = await terminateProcess(pid, options.timeoutMs);
  await rm(folder.pidFile, { force: true });
  return { pid, ...result };
}

async function answersOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

export interface StartStageOptions {
  folder: StageFolder;
  /** The package root: the services run from its `dist/`. */
  projectRoot: string;
  inputs: DeployInputs;
  /** The environment the services get (the deploy inputs travel in it). */
  environment: Record<string, string | undefined>;
  /** How long to wait for `GET /` to answer on both services. */
  readyTimeoutMs: number;
}

/** Starts the services detached and resolves once `GET /` answers 200 on both. */
export async function startStage(options: StartStageOptions): Promise<StartedServices> {
  const { folder, projectRoot, inputs } = options;
  const entry = join(projectRoot, 'dist', 'cli', 'main.js');
  if (!existsSync(entry)) throw new CliError(`${entry} does not exist: deploy without --skip-build, or run npm run build.`);
  await mkdir(folder.path, { recursive: true, mode: 0o700 });
  await mkdir(folder.bucketFolder, { recursive: true, mode: 0o700 });
  await rm(folder.addressFile, { force: true });

  const environment: Record<string, string | undefined> = { ...options.environment, SST_STAGE: inputs.stage };
  // The stage folder is the data folder; a HARNESS_DATA_DIR meant for `harness serve` must not move it.
  delete environment.HARNESS_DATA_DIR;
  const startedAt = new Date().toISOString();
  const logFd = openSync(folder.logFile, 'a', 0o600);
  const addressFd = openSync(folder.addressFile, 'w', 0o600);
  let child;
  try {
    writeSync(logFd, `--- harness deploy: starting stage ${inputs.stage} at ${startedAt} ---\n`);
    child = spawn(
      process.execPath,
      [entry, 'serve', '--json', '--stage', inputs.stage, '--data-dir', folder.path, '--account-port', String(inputs.accountPort), '--agent-port', String(inputs.agentPort)],
      // Detached in its own process group, with no pipe back to us: the deploy command may exit.
      { cwd: projectRoot, detached: true, stdio: ['ignore', addressFd, logFd], env: environment as NodeJS.ProcessEnv },
    );
  } finally {
    closeSync(logFd);
    closeSync(addressFd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new CliError(`Could not start ${process.execPath} ${entry}.`);
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  });
  child.unref();
  await writeFile(folder.pidFile, `${JSON.stringify({ pid, startedAt } satisfies ServiceRecord)}\n`, { mode: 0o600 });

  const failure = async (reason: string): Promise<CliError> => {
    const tail = await readFileTail(folder.logFile, logTailLines);
    return new CliError(`The services ${reason}. Last lines of ${folder.logFile}:\n${tail}`);
  };
  const deadline = Date.now() + options.readyTimeoutMs;
  let urls: { accountUrl: string; agentUrl: string } | undefined;
  while (Date.now() < deadline) {
    if (exited !== undefined) {
      await rm(folder.pidFile, { force: true });
      throw await failure(exited);
    }
    if (urls === undefined) {
      const text = await readFile(folder.addressFile, 'utf8').catch(() => '');
      if (text.includes('\n')) urls = JSON.parse(text.slice(0, text.indexOf('\n'))) as { accountUrl: string; agentUrl: string };
    }
    if (urls !== undefined && (await answersOk(`${urls.accountUrl}/`)) && (await answersOk(`${urls.agentUrl}/`))) {
      return { pid, startedAt, accountUrl: urls.accountUrl, agentUrl: urls.agentUrl };
    }
    await sleep(100);
  }
  await terminateProcess(pid, 5_000).catch(() => undefined);
  await rm(folder.pidFile, { force: true });
  throw await failure(`did not answer GET / within ${Math.round(options.readyTimeoutMs / 1000)} s`);
}
