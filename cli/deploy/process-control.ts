import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Whether a process is still running. A zombie (exited, not yet reaped by its parent)
 * counts as gone: it holds no port and no file, and signals no longer reach it.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // `/proc/<pid>/stat` is "pid (name) STATE ..."; the name may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** Resolves true once the process is gone, false when it is still running after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs: number, pollMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(pollMs);
  }
  return true;
}

export interface TerminateResult {
  /** `SIGTERM` when it stopped on its own, `SIGKILL` when it had to be killed. */
  signal: 'SIGTERM' | 'SIGKILL';
  elapsedMs: number;
}

/**
 * SIGTERM (the service closes gracefully: in-flight requests finish, storage is flushed,
 * the data folder is released), then SIGKILL if it is still running after `timeoutMs`: to
 * its process group when it leads one (the deployed services do), else to the process.
 */
export async function terminateProcess(pid: number, timeoutMs: number): Promise<TerminateResult> {
  const startedAt = Date.now();
  const send = (signal: NodeJS.Signals): void => {
    try {
      process.kill(pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  };
  send('SIGTERM');
  if (await waitForExit(pid, timeoutMs)) return { signal: 'SIGTERM', elapsedMs: Date.now() - startedAt };
  // The service was started detached, so it leads its own process group: killing the group
  // also takes down what it started itself (an embedded nats-server) instead of orphaning it.
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    send('SIGKILL');
  }
  if (!(await waitForExit(pid, 5_000))) throw new Error(`Process ${pid} is still running after SIGKILL.`);
  return { signal: 'SIGKILL', elapsedMs: Date.now() - startedAt };
}
