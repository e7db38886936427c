import { readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeWorkspaceFile } from './write-file.js';
import { createFileToolsFixture, toolError } from './test-support/file-tools-fixture.js';

let root: string;
let base: string;
let remove: () => Promise<void>;

beforeEach(async () => {
  ({ base, root, remove } = await createFileToolsFixture());
});

afterEach(async () => {
  await remove();
});

describe('writeWorkspaceFile', () => {
  it('creates folders and returns the bytes written', async () => {
    await expect(writeWorkspaceFile({ root, path: 'new/folder/file.txt', content: 'héllo' })).resolves.toEqual({ path: 'new/folder/file.txt', bytes: 6 });
    expect(await readFile(path.join(root, 'new', 'folder', 'file.txt'), 'utf8')).toBe('héllo');
  });

  it('refuses in a read-only workspace, outside the root and through a symlink out', async () => {
    expect((await toolError(writeWorkspaceFile({ root, path: 'x.txt', content: 'x', readOnly: true }))).message).toBe('This workspace is read-only; write is not allowed.');
    await toolError(writeWorkspaceFile({ root, path: '../data/x.txt', content: 'x' }));
    await symlink(path.join(base, 'data'), path.join(root, 'data-link'));
    await toolError(writeWorkspaceFile({ root, path: 'data-link/x.txt', content: 'x' }));
    await expect(readFile(path.join(base, 'data', 'x.txt'))).rejects.toThrow();
  });
});
