import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { temporaryFolderPerTest } from '../test/support/temporary-folder.js';

const failRename = vi.hoisted(() => ({ enabled: false }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...original,
    rename: async (from: string, to: string) => {
      if (failRename.enabled) throw Object.assign(new Error('disk went away'), { code: 'EIO' });
      return original.rename(from, to);
    },
  };
});

const { writeFileAtomically } = await import('./atomic-write.js');

afterEach(() => {
  failRename.enabled = false;
});

describe('writeFileAtomically', () => {
  const temporary = temporaryFolderPerTest('harness-atomic-');
  it('replaces the file with the given mode', async () => {
    const folder = temporary.path;
    const path = join(folder, 'file.json');
    await writeFile(path, 'old');
    await writeFileAtomically(path, 'new', 0o600);
    expect(await readFile(path, 'utf8')).toBe('new');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(folder)).toEqual(['file.json']);
  });

  it('leaves the old file whole and no temporary file when the final rename fails', async () => {
    const folder = temporary.path;
    const path = join(folder, 'file.json');
    await writeFile(path, 'old');
    failRename.enabled = true;
    await expect(writeFileAtomically(path, 'new', 0o600)).rejects.toThrow('disk went away');
    expect(await readFile(path, 'utf8')).toBe('old');
    expect(await readdir(folder)).toEqual(['file.json']);
  });
});
