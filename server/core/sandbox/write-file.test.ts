import { readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeWorkspaceFile } from './write-file.js';
import { fileToolsFixturePerTest, toolError } from './test-support/file-tools-fixture.js';

const workspace = fileToolsFixturePerTest();

describe('writeWorkspaceFile', () => {
  it('creates folders and returns the bytes written', async () => {
    await expect(writeWorkspaceFile({ root: workspace.root, path: 'new/folder/file.txt', content: 'héllo' })).resolves.toEqual({ path: 'new/folder/file.txt', bytes: 6 });
    expect(await readFile(path.join(workspace.root, 'new', 'folder', 'file.txt'), 'utf8')).toBe('héllo');
  });

  it('refuses in a read-only workspace, outside the root and through a symlink out', async () => {
    expect((await toolError(writeWorkspaceFile({ root: workspace.root, path: 'x.txt', content: 'x', readOnly: true }))).message).toBe('This workspace is read-only; write is not allowed.');
    await toolError(writeWorkspaceFile({ root: workspace.root, path: '../data/x.txt', content: 'x' }));
    await symlink(path.join(workspace.base, 'data'), path.join(workspace.root, 'data-link'));
    await toolError(writeWorkspaceFile({ root: workspace.root, path: 'data-link/x.txt', content: 'x' }));
    await expect(readFile(path.join(workspace.base, 'data', 'x.txt'))).rejects.toThrow();
  });
});
