import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { execa } from 'execa';
import { bubblewrapArguments, sandboxWorkspaceFolder } from './bubblewrap-arguments.js';
import type { BubblewrapStatus } from './bubblewrap-probe.js';
import type { SandboxLimits } from './sandbox-config-schema.js';
import { sandboxEnvironment } from './sandbox-environment.js';

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
  /** Where allow-listed variables are read from; default process.env. */
  environment?: NodeJS.ProcessEnv;
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
}

/** Collects stdout and stderr under one shared byte budget, draining past it. */
class OutputCollector {
  private readonly chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  private readonly dropped = { stdout: 0, stderr: 0 };
  private kept = 0;
  constructor(private readonly maxBytes: number) {}

  add(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    const room = this.maxBytes - this.kept;
    const keep = Math.max(0, Math.min(room, chunk.length));
    if (keep > 0) this.chunks[stream].push(chunk.subarray(0, keep));
    this.kept += keep;
    this.dropped[stream] += chunk.length - keep;
  }

  get truncated(): boolean {
    return this.dropped.stdout + this.dropped.stderr > 0;
  }

  text(stream: 'stdout' | 'stderr'): string {
    const text = Buffer.concat(this.chunks[stream]).toString('utf8');
    if (this.dropped[stream] === 0) return text;
    // A cut can split a UTF-8 character; drop the replacement characters it leaves.
    const kept = text.replace(/\uFFFD+$/, '');
    const separator = kept === '' || kept.endsWith('\n') ? '' : '\n';
    return `${kept}${separator}[output truncated: ${this.dropped[stream]} more bytes of ${stream} past the ${this.maxBytes}-byte limit]`;
  }
}

function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

async function runInFolder(request: RunBashRequest, workingFolder: string): Promise<BashResult> {
  const { limits, bubblewrap, workingFolderHandle: handle } = request;
  const home = bubblewrap.available ? sandboxWorkspaceFolder : workingFolder;
  const environment = sandboxEnvironment(limits.environment, request.environment ?? process.env, home);
  const [file, ...args] = bubblewrap.available
    ? [bubblewrap.executablePath, ...bubblewrapArguments({ workingFolder, workingFolderFd: handle === undefined ? undefined : 3, network: limits.network }), '/bin/bash', '-c', request.command]
    : ['/bin/bash', '-c', request.command];
  const started = performance.now();
  const output = new OutputCollector(limits.maxOutputBytes);
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
  const timer = setTimeout(() => {
    timedOut = true;
    killProcessGroup(subprocess.pid);
  }, limits.timeoutMs);
  // Background processes left behind when bash exits would keep the pipes open and outlive
  // the call: a call is one-shot, so its whole group goes with it.
  subprocess.once('exit', () => killProcessGroup(subprocess.pid));
  const result = await subprocess;
  clearTimeout(timer);
  if (!timedOut && result.exitCode === undefined && result.signal === undefined) {
    // Neither an exit nor a kill: the process never started (missing folder, no bwrap...).
    throw new Error(`bash could not start: ${result.shortMessage}`, { cause: result.cause });
  }
  return {
    exitCode: timedOut ? null : (result.exitCode ?? null),
    stdout: output.text('stdout'),
    stderr: output.text('stderr'),
    timedOut,
    truncated: output.truncated,
    durationMs: Math.round(performance.now() - started),
  };
}

/**
 * Run `/bin/bash -c command` (no shell parsing by execa) with the call's limits: a timeout
 * that kills the whole process group, a cap on stdout + stderr, an allow-listed
 * environment, and bubblewrap isolation when it is available.
 */
export async function runBash(request: RunBashRequest): Promise<BashResult> {
  if (request.workingFolder !== undefined) return runInFolder(request, request.workingFolder);
  const folder = await mkdtemp(path.join(tmpdir(), 'harness-bash-'));
  try {
    return await runInFolder(request, folder);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
