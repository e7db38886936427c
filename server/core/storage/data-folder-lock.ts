import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, open, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { syncFolder } from './durable-file.js';

export class DataFolderLockedError extends Error {
  constructor(folder: string, holder: string) {
    super(`The data folder ${folder} is in use by another harness process (${holder}). Stop it first (harness stop, or kill that process), or start with another --data-dir.`);
    this.name = 'DataFolderLockedError';
  }
}

export interface DataFolderLock {
  release(): Promise<void>;
}

/** What the lock file records about its owner. `pid` and `host` are also read by `harness stop`. */
interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
  /** When the kernel started the process, with the boot it belongs to: tells a reused pid from the owner. */
  processStart?: string;
  token: string;
}

/** Linux: the boot id and the process's start time in clock ticks since boot; undefined elsewhere. */
function processStart(pid: number): string | undefined {
  try {
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22, counted after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return `${bootId}/${fields[19]}`;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the recorded owner still runs: its pid is alive and, where known, started when it recorded. */
function ownerRuns(owner: LockOwner): boolean {
  if (!isAlive(owner.pid)) return false;
  if (owner.processStart === undefined) return true;
  const current = processStart(owner.pid);
  return current === undefined || current === owner.processStart;
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    return typeof owner.pid === 'number' ? (owner as LockOwner) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One service process owns a data folder. The lock file is never seen half written: the
 * owner record is written and fsynced in a file of its own, then linked to `service.lock`,
 * which fails if that name exists (atomic, like O_EXCL). So two processes started together
 * cannot both take the folder, and a lock file that holds no owner record is damage to
 * report, never a lock to take over.
 *
 * A lock whose owner no longer runs (a `kill -9`; a pid reused after it, told apart by the
 * process start time) is stale. It is taken over by renaming it aside first: only one of
 * several starters can rename that file, and one that renamed a fresh lock by mistake
 * (another starter took over in between) puts it back.
 */
export async function lockDataFolder(folder: string): Promise<DataFolderLock> {
  const path = join(folder, 'service.lock');
  const owner: LockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), processStart: processStart(process.pid), token: randomBytes(12).toString('hex') };
  const draft = join(folder, `.service.lock.${owner.token}.tmp`);
  const file = await open(draft, 'wx', 0o600);
  try {
    await file.writeFile(JSON.stringify(owner));
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      try {
        await link(draft, path);
        await syncFolder(folder);
        return { release: () => releaseLock(path, owner.token) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      await removeIfStale(folder, path);
    }
    throw new DataFolderLockedError(folder, 'a process that keeps re-creating the lock');
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

/** Throws if the lock at `path` is held (or unreadable); removes it if its owner is gone. */
async function removeIfStale(folder: string, path: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const holder = parseOwner(text);
  if (!holder) {
    throw new DataFolderLockedError(folder, `${path} holds no owner record; if no harness process uses this folder, delete that file`);
  }
  if (holder.host !== undefined && holder.host !== hostname()) throw new DataFolderLockedError(folder, `pid ${holder.pid} on ${holder.host}`);
  if (ownerRuns(holder)) {
    throw new DataFolderLockedError(folder, holder.pid === process.pid ? 'this process' : `pid ${holder.pid}`);
  }
  const aside = join(folder, `.service.lock.${randomBytes(12).toString('hex')}.stale`);
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // another starter took it over first
    throw error;
  }
  const moved = parseOwner(await readFile(aside, 'utf8').catch(() => ''));
  if (moved?.token !== holder.token || moved.pid !== holder.pid) {
    // Another starter replaced the stale lock between our read and our rename: put its lock back.
    await link(aside, path).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
}

/** Remove the lock if it is still ours. */
async function releaseLock(path: string, token: string): Promise<void> {
  const current = parseOwner(await readFile(path, 'utf8').catch(() => ''));
  if (current?.token !== token) return;
  await unlink(path).catch(() => undefined);
}
