import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';

/** The file system calls the storage makes, in order: which folders it opened to fsync, which files it deleted. */
const calls = vi.hoisted(() => [] as string[]);

vi.mock('node:fs/promises', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...original,
    open: (async (path: string, flags?: string | number, mode?: number) => {
      // `syncFolder` opens a folder read-only to fsync it.
      if (flags === 'r') calls.push(`sync ${String(path)}`);
      return original.open(path, flags, mode);
    }) as typeof original.open,
    unlink: (async (path: string) => {
      calls.push(`unlink ${String(path)}`);
      return original.unlink(path);
    }) as typeof original.unlink,
  };
});

describe('LowdbStorage partition files', () => {
  const folder = temporaryFolderPerTest();

  it('fsyncs a table folder once after writing its partition files, and before deleting the log they replace', async () => {
    // Loaded afresh: a setup file (the PostgreSQL runs') may have loaded the storage with the real file system already.
    vi.resetModules();
    const { LowdbStorage } = await import('./lowdb-storage.js');
    const storage = new LowdbStorage(folder.path);
    const things = storage.table<number>('things');
    const others = storage.table<number>('others');
    for (let index = 0; index < 5; index += 1) await things.write(`p${index}`, [{ type: 'put', key: 'k', value: index }]);
    await others.write('q', [{ type: 'put', key: 'k', value: 1 }]);
    calls.length = 0;
    await storage.close();
    const thingsSync = `sync ${join(folder.path, 'things')}`;
    const othersSync = `sync ${join(folder.path, 'others')}`;
    expect(calls.filter((call) => call === thingsSync)).toHaveLength(1);
    expect(calls.filter((call) => call === othersSync)).toHaveLength(1);
    const segmentDeleted = calls.findIndex((call) => call.startsWith(`unlink ${join(folder.path, 'log')}`));
    expect(segmentDeleted).toBeGreaterThan(calls.indexOf(thingsSync));
    expect(segmentDeleted).toBeGreaterThan(calls.indexOf(othersSync));
    // Nothing was lost on the way: the files hold every partition.
    const reopened = new LowdbStorage(folder.path);
    expect((await reopened.table<number>('things').listPartitions()).sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
    expect(await reopened.table<number>('others').get('q', 'k')).toEqual({ key: 'k', value: 1, version: 1 });
    await reopened.close();
  });
});
