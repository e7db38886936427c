import { constants } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { bubblewrapArguments } from './bubblewrap-arguments.js';

/** Whether bash calls can run inside bubblewrap; the service warns when they cannot. */
export type BubblewrapStatus =
  | { available: true; version: string; /** Absolute path of the bwrap executable. */ executablePath: string }
  | { available: false; reason: string };

async function findExecutable(name: string, searchPath: string): Promise<string | undefined> {
  for (const folder of searchPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(folder, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}

/**
 * Find bwrap and run a trivial command inside it with the same arguments bash calls use:
 * an installed bwrap can still fail (no user namespaces, a seccomp profile, no /proc).
 */
export async function probeBubblewrap(options: { searchPath?: string } = {}): Promise<BubblewrapStatus> {
  const executablePath = await findExecutable('bwrap', options.searchPath ?? process.env.PATH ?? '/usr/bin:/bin');
  if (!executablePath) return { available: false, reason: 'bwrap was not found on PATH (Debian package: bubblewrap)' };
  const versionRun = await execa(executablePath, ['--version'], { reject: false, timeout: 10_000, stdin: 'ignore' });
  if (versionRun.exitCode !== 0) {
    return { available: false, reason: `bwrap --version failed: ${firstLine(versionRun.stderr) || `exit code ${String(versionRun.exitCode)}`}` };
  }
  const version = firstLine(versionRun.stdout).replace(/^bubblewrap\s+/, '');
  const folder = await mkdtemp(path.join(tmpdir(), 'harness-bwrap-probe-'));
  try {
    const trial = await execa(
      executablePath,
      [...bubblewrapArguments({ workingFolder: folder, network: false }), '/bin/sh', '-c', 'echo probe > probe-file && cat probe-file'],
      { reject: false, timeout: 10_000, stdin: 'ignore', extendEnv: false, env: { PATH: '/usr/bin:/bin' } },
    );
    if (trial.exitCode !== 0 || trial.stdout.trim() !== 'probe') {
      const detail = firstLine(trial.stderr) || (trial.timedOut ? 'timed out' : `exit code ${String(trial.exitCode)}`);
      return { available: false, reason: `bwrap ${version} is installed but cannot run a sandbox here: ${detail}` };
    }
    return { available: true, version, executablePath };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
