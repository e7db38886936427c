import { spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { CliError } from '../cli-error.js';
import { readFileTail } from './file-tail.js';
import { isProcessAlive, terminateProcess, type TerminateResult } from './process-control.js';

/**
 * One `harness serve` process started detached (its own process group, no pipe back), so it
 * outlives the command that started it: a deployed stage's replica, or a replica of
 * `harness cluster up`. Its folder is its data folder and keeps its pid, log and address files.
 */
export interface ServiceFolder {
  /** The data folder (`--data-dir`). */
  path: string;
  /** `{pid, startedAt}` of the process. */
  pidFile: string;
  /** Its stdout's JSON line and stderr (the log lines), appended by every start. */
  logFile: string;
  /** What `harness serve --json` prints once it listens: `{accountUrl, agentUrl}`. */
  addressFile: string;
  /** The service's data-folder lock on lowdb (`{pid, host, startedAt}`); PostgreSQL replicas take none. */
  lockFile: string;
}

/** What a service's pid file holds. */
export interface ServiceRecord {
  pid: number;
  startedAt: string;
}

export interface StartedServices extends ServiceRecord {
  accountUrl: string;
  agentUrl: string;
}

/** How to run `harness`: an executable and the arguments before the command's own. */
export interface HarnessCommand {
  executable: string;
  args: string[];
  cwd: string;
}

export interface StartDetachedServiceOptions {
  folder: ServiceFolder;
  command: HarnessCommand;
  stage: string;
  accountPort: number;
  agentPort: number;
  /** The environment the service gets. */
  environment: Record<string, string | undefined>;
  /** How long to wait for `GET /` to answer on both services. */
  readyTimeoutMs: number;
  /** The line written to the log before the service's own, e.g. `--- harness deploy: starting stage x at ... ---`. */
  banner: (startedAt: string) => string;
  /** Names the process in error messages; default "The services". */
  label?: string;
}

const logTailLines = 40;

export async function readJsonFile<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The arguments of a live process, from `/proc/<pid>/cmdline`; undefined when it is gone. */
export async function processArguments(pid: number): Promise<string[] | undefined> {
  if (!isProcessAlive(pid)) return undefined;
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter((part) => part !== '');
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a `harness serve` on `dataFolder` (a pid alone may have been reused since). */
export async function isServeProcessOf(pid: number, dataFolder: string): Promise<boolean> {
  const args = await processArguments(pid);
  if (args === undefined) return false;
  const at = args.indexOf('--data-dir');
  return args.includes('serve') && at >= 0 && args[at + 1] === dataFolder;
}

/** The pid of the service running on this folder, or undefined when none runs. */
export async function runningServicePid(folder: ServiceFolder): Promise<number | undefined> {
  const record = await readJsonFile<ServiceRecord>(folder.pidFile);
  if (record === undefined || !Number.isInteger(record.pid) || !isProcessAlive(record.pid)) return undefined;
  // The pid alone could be a reused number after a reboot: only the process that holds the
  // folder's lock (lowdb), or whose command line serves this folder (PostgreSQL), is ours.
  const lock = await readJsonFile<{ pid?: number }>(folder.lockFile);
  if (lock?.pid === record.pid) return record.pid;
  return (await isServeProcessOf(record.pid, folder.path)) ? record.pid : undefined;
}

/** Stops the folder's service (SIGTERM, then SIGKILL after `timeoutMs`); undefined when none ran. */
export async function stopDetachedService(folder: ServiceFolder, timeoutMs: number): Promise<(TerminateResult & { pid: number }) | undefined> {
  const pid = await runningServicePid(folder);
  const result = pid === undefined ? undefined : { pid, ...(await terminateProcess(pid, timeoutMs)) };
  await rm(folder.pidFile, { force: true });
  return result;
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

/** Starts `harness serve` detached on the folder and resolves once `GET /` answers 200 on both services. */
export async function startDetachedService(options: StartDetachedServiceOptions): Promise<StartedServices> {
  const { folder, command } = options;
  const label = options.label ?? 'The services';
  await mkdir(folder.path, { recursive: true, mode: 0o700 });
  await rm(folder.addressFile, { force: true });
  const startedAt = new Date().toISOString();
  const logFd = openSync(folder.logFile, 'a', 0o600);
  const addressFd = openSync(folder.addressFile, 'w', 0o600);
  let child;
  try {
    writeSync(logFd, `${options.banner(startedAt)}\n`);
    child = spawn(
      command.executable,
      [...command.args, 'serve', '--json', '--stage', options.stage, '--data-dir', folder.path, '--account-port', String(options.accountPort), '--agent-port', String(options.agentPort)],
      // Detached in its own process group, with no pipe back to us: the starting command may exit.
      { cwd: command.cwd, detached: true, stdio: ['ignore', addressFd, logFd], env: options.environment as NodeJS.ProcessEnv },
    );
  } finally {
    closeSync(logFd);
    closeSync(addressFd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new CliError(`Could not start ${command.executable} ${command.args.join(' ')}.`);
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  });
  child.unref();
  await writeFile(folder.pidFile, `${JSON.stringify({ pid, startedAt } satisfies ServiceRecord)}\n`, { mode: 0o600 });

  const failure = async (reason: string): Promise<CliError> => {
    const tail = await readFileTail(folder.logFile, logTailLines);
    return new CliError(`${label} ${reason}. Last lines of ${folder.logFile}:\n${tail}`);
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
