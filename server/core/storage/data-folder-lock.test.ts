import { execa } from 'execa';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';
import { DataFolderLockedError, lockDataFolder } from './data-folder-lock.js';

describe('lockDataFolder', () => {
  const folder = temporaryFolderPerTest();

  it('refuses a second owner while the first holds the folder, and allows one after release', async () => {
    const lock = await lockDataFolder(folder.path);
    await expect(lockDataFolder(folder.path)).rejects.toBeInstanceOf(DataFolderLockedError);
    await lock.release();
    const again = await lockDataFolder(folder.path);
    await again.release();
  });

  it('refuses when another live process holds the lock, naming it', async () => {
    const child = execa('node', ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await writeFile(join(folder.path, 'service.lock'), JSON.stringify({ pid: child.pid }));
      await expect(lockDataFolder(folder.path)).rejects.toThrow(`in use by another harness process (pid ${child.pid})`);
    } finally {
      child.kill('SIGKILL');
      await child.catch(() => undefined);
    }
  });

  it('takes over a stale lock left by a killed process', async () => {
    const child = execa('node', ['-e', '0']);
    await child;
    await writeFile(join(folder.path, 'service.lock'), JSON.stringify({ pid: child.pid }));
    const lock = await lockDataFolder(folder.path);
    expect(JSON.parse(await readFile(join(folder.path, 'service.lock'), 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });
});
