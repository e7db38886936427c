import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { type BashLimitHit, bashLimitHits } from './bash-limit-report.js';
import { bubblewrapArguments, sandboxWorkspaceFolder } from './bubblewrap-arguments.js';
import type { BubblewrapStatus } from './bubblewrap-probe.js';
import { type DiskQuota, folderBytes } from './disk-quota.js';
import { OutputCollector } from './output-collector.js';
import { type CgroupSupport, createCallCgroup } from './sandbox-cgroups.js';
import type { SandboxLimits } from './sandbox-config-schema.js';
import { sandboxEnvironment } from './sandbox-environment.js';
import { defaultSandboxSettings, type SandboxResourceLimits, type SandboxSettings } from './sandbox-settings.js';
import { SandboxToolError } from './sandbox-tool-error.js';

export interface RunBashRequest {
  command: string;
  /** Host folder the command runs in (bound at /workspace under bubblewrap). Omitted: a
   * stateless call, run in a fresh temporary folder that is deleted afterwards. */
  workingFolder?: string;
  /** An open fd of the checked working folder: passed to the child as fd 3, which bubblewrap
   * binds (`--bind-fd`, then closes) and bash without it starts in; the path is then unused. */
  workingFolderHandle?: number;
  limits: SandboxLimits;
  bubblewrap: BubblewrapStatus;
  /** Where the variables the agent names are read from; default process.env. */
  environment?: NodeJS.ProcessEnv;
  /** The operator's settings: variables let through, the unsafe opt-in, resource limits. Default: the defaults. */
  settings?: SandboxSettings;
  /** Where per-call cgroups are made; without them processes and memory are limited per process. */
  cgroups?: CgroupSupport;
  /** The account's disk quota: watched while the call runs, which is killed when it goes past. */
  diskQuota?: DiskQuota;
  /** Stops the call: every process it started is killed and the result says so. */
  signal?: AbortSignal;
}

export interface BashResult {
  /** Null when the command was killed by a signal (always so on timeout). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** True when stdout + stderr went past limits.maxOutputBytes and were cut. */
  truncated: boolean;
  durationMs: number;
  /** True when the request's signal stopped the call. */
  aborted: boolean;
  /** The limits the call ran into, most decisive first; empty when none. */
  limitsHit: BashLimitHit[];
}

/** How often the disk quota is measured while bash runs. */
const diskQuotaPollMs = 250;

function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * The first process of a call, inside bubblewrap: set the per-process limits, then exec the
 * command. `ulimit -H` lowers hard limits, which nothing inside can raise again. RLIMIT_NPROC
 * binds a service that is not root (counted per user namespace, so per call); RLIMIT_DATA
 * bounds each process's memory when no cgroup bounds the call's.
 */
function limitsPrologue(resources: SandboxResourceLimits, cpuSeconds: number, memoryByCgroup: boolean): string {
  const kibibytes = (bytes: number) => Math.max(1, Math.floor(bytes / 1024));
  const limits = [
    'ulimit -c 0',
    `ulimit -HS -u ${resources.maxProcesses}`,
    `ulimit -HS -f ${kibibytes(resources.fileSizeBytes)}`,
    `ulimit -HS -t ${cpuSeconds}`,
    ...(memoryByCgroup ? [] : [`ulimit -HS -d ${kibibytes(resources.memoryBytes)}`]),
  ];
  return `${limits.join(' && ')} || exit 126; exec /bin/bash -c "$1"`;
}

// Joins the call's cgroups by pid before it execs anything, so nothing it starts escapes them.
const joinCgroups = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

function unavailableError(bubblewrap: Extract<BubblewrapStatus, { available: false }>): SandboxToolError {
  return new SandboxToolError(
    'sandbox-unavailable',
    `bash is unavailable: it runs only inside the bubblewrap sandbox, and ${bubblewrap.reason}. The operator can install it with "apt-get install bubblewrap" and restart the service.`,
  );
}

/** Measure the account's files while the call runs; call `onExceeded` once it goes past the quota. */
function watchDiskQuota(quota: DiskQuota, extraFolders: string[], onExceeded: () => void): () => Promise<void> {
  let stopped = false;
  const measure = async () => (await quota.usage()) + (await Promise.all(extraFolders.map(folderBytes))).reduce((sum, bytes) => sum + bytes, 0);
  const loop = (async () => {
    // An account already past its quota may still run bash to delete files: only growth past it is stopped.
    const ceiling = Math.max(quota.maxBytes, await measure());
    while (!stopped) {
      await sleep(diskQuotaPollMs);
      if (stopped) break;
      if ((await measure().catch(() => 0)) > ceiling) {
        onExceeded();
        return;
      }
    }
  })().catch(() => undefined);
  return async () => {
    stopped = true;
    await loop;
  };
}

async function runInFolder(request: RunBashRequest, workingFolder: string, settings: SandboxSettings): Promise<BashResult> {
  const { limits, bubblewrap, workingFolderHandle: handle } = request;
  const { resources } = settings;
  const home = bubblewrap.available ? sandboxWorkspaceFolder : workingFolder;
  const environment = sandboxEnvironment(limits.environment, settings.passEnvironment, request.environment ?? process.env, home);
  const cpuSeconds = Math.ceil(limits.timeoutMs / 1000);
  const cgroup = request.cgroups?.available ? await createCallCgroup(request.cgroups, resources) : undefined;
  const limited = ['/bin/bash', '-c', limitsPrologue(resources, cpuSeconds, cgroup !== undefined), 'harness-limits', request.command];
  const sandboxed = bubblewrap.available
    ? [bubblewrap.executablePath, ...bubblewrapArguments({ workingFolder, workingFolderFd: handle === undefined ? undefined : 3, network: limits.network, tmpBytes: resources.tmpBytes }), ...limited]
    : limited;
  const [file, ...args] = cgroup ? ['/bin/sh', '-c', joinCgroups, 'harness-cgroup', ...cgroup.procsFiles, '--', ...sandboxed] : sandboxed;
  const started = performance.now();
  const output = new OutputCollector(limits.maxOutputBytes);
  try {
    // detached: the command leads its own process group, so one kill reaches every child it
    // started (`sleep 100 &` included); under bubblewrap, killing bwrap ends its pid namespace.
    const subprocess = execa(file as string, args, {
      cwd: handle === undefined ? workingFolder : bubblewrap.available ? '/' : '/proc/self/fd/3',
      env: environment,
      extendEnv: false,
      shell: false,
      detached: true,
      // execa's types list only fds 3-9 here, but any fd of this process is passed as is.
      ...(handle === undefined ? { stdin: 'ignore' as const } : { stdio: ['ignore', 'pipe', 'pipe', handle as 3] as const }),
      buffer: false,
      reject: false,
    });
    const collect = (stream: 'stdout' | 'stderr', readable: Readable | null) => {
      readable?.on('data', (chunk: Buffer) => output.add(stream, chunk));
    };
    collect('stdout', subprocess.stdout);
    collect('stderr', subprocess.stderr);
    let timedOut = false;
    let aborted = false;
    let diskQuotaExceeded = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killProcessGroup(subprocess.pid);
    }, limits.timeoutMs);
    const abort = () => {
      aborted = true;
      killProcessGroup(subprocess.pid);
    };
    if (request.signal?.aborted) abort();
    else request.signal?.addEventListener('abort', abort, { once: true });
    const quota = request.diskQuota;
    const insideQuota = quota && !path.relative(quota.folder, workingFolder).startsWith('..');
    const stopWatching = quota
      ? watchDiskQuota(quota, insideQuota ? [] : [workingFolder], () => {
          diskQuotaExceeded = true;
          killProcessGroup(subprocess.pid);
        })
      : async () => undefined;
    // Background processes left behind when bash exits would keep the pipes open and outlive
    // the call: a call is one-shot, so its whole group goes with it.
    subprocess.nodeChildProcess.once('exit', () => killProcessGroup(subprocess.pid));
    const result = await subprocess;
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', abort);
    await stopWatching();
    if (!timedOut && !aborted && result.exitCode === undefined && result.signal === undefined) {
      // Neither an exit nor a kill: the process never started (missing folder, no bwrap...).
      throw new Error(`bash could not start: ${result.shortMessage}`, { cause: result.cause });
    }
    const killed = timedOut || aborted || diskQuotaExceeded;
    const stderr = output.text('stderr');
    const limitsHit = bashLimitHits({
      exitCode: result.exitCode ?? null,
      signal: result.signal ?? null,
      stderr,
      timedOut,
      aborted,
      diskQuotaExceeded,
      cgroup: await cgroup?.outcome(),
      memoryByCgroup: cgroup !== undefined,
      resources,
      timeoutMs: limits.timeoutMs,
      cpuSeconds,
      diskQuotaBytes: quota?.maxBytes,
    });
    return {
      exitCode: killed ? null : (result.exitCode ?? null),
      stdout: output.text('stdout'),
      stderr,
      timedOut,
      truncated: output.truncated,
      durationMs: Math.round(performance.now() - started),
      aborted,
      limitsHit,
    };
  } finally {
    await cgroup?.remove();
  }
}

/**
 * Run `/bin/bash -c command` (no shell parsing by execa) inside bubblewrap with the call's
 * limits: a timeout that kills the whole process group, a cap on stdout + stderr, the
 * environment both the agent and the operator allow, per-call cgroups or rlimits for
 * processes, memory, file size and CPU time, a sized /tmp, and the account's disk quota.
 * Without bubblewrap it refuses with a tool error, unless the operator opted in to running
 * bash unsandboxed.
 */
export async function runBash(request: RunBashRequest): Promise<BashResult> {
  const settings = request.settings ?? defaultSandboxSettings;
  if (!request.bubblewrap.available && !settings.allowUnsandboxedBash) throw unavailableError(request.bubblewrap);
  if (request.workingFolder !== undefined) return runInFolder(request, request.workingFolder, settings);
  const folder = await mkdtemp(path.join(tmpdir(), 'harness-bash-'));
  try {
    return await runInFolder(request, folder, settings);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
