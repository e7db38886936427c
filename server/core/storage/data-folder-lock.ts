import { open, readFile, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

export class DataFolderLockedError extends Error {
  constructor(folder: string, holder: string) {
    super(`The data folder ${folder} is in use by another harness process (${holder}). Stop it first (harness stop, or kill that process), or start with another --data-dir.`);
    this.name = 'DataFolderLockedError';
  }
}

export interface DataFolderLock {
  release(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One service process owns a data folder. The lock is a file created exclusively (O_EXCL)
 * holding the owner's pid; a lock whose process is gone (a `kill -9`) is stale and taken over.
 */
export async function lockDataFolder(folder: string): Promise<DataFolderLock> {
  const path = join(folder, 'service.lock');
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const file = await open(path, 'wx', 0o600);
      await file.writeFile(JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString() }));
      await file.sync();
      await file.close();
      return {
        release: async () => {
          await unlink(path).catch(() => undefined);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder: { pid?: number; host?: string } = {};
    try {
      holder = JSON.parse(await readFile(path, 'utf8')) as typeof holder;
    } catch {
      // A lock file torn by a crash while it was being written: treat it as stale.
    }
    const sameHost = holder.host === undefined || holder.host === hostname();
    if (typeof holder.pid === 'number' && sameHost && holder.pid !== process.pid && isAlive(holder.pid)) {
      throw new DataFolderLockedError(folder, `pid ${holder.pid}`);
    }
    if (typeof holder.pid === 'number' && !sameHost) throw new DataFolderLockedError(folder, `pid ${holder.pid} on ${holder.host}`);
    if (holder.pid === process.pid) throw new DataFolderLockedError(folder, 'this process');
    await unlink(path).catch(() => undefined);
  }
  throw new DataFolderLockedError(folder, 'a process that keeps re-creating the lock');
}
