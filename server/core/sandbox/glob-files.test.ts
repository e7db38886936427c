import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { globWorkspaceFiles } from './glob-files.js';
import { fileToolsFixturePerTest, toolError } from './test-support/file-tools-fixture.js';

const workspace = fileToolsFixturePerTest();

describe('globWorkspaceFiles', () => {
  it('lists matching files relative to the root, sorted, from a folder', async () => {
    await expect(globWorkspaceFiles({ root: workspace.root, pattern: '**/*.ts' })).resolves.toEqual({ files: ['src/a.ts', 'src/deep/b.ts'], truncated: false });
    await expect(globWorkspaceFiles({ root: workspace.root, pattern: '*.ts', path: 'src/deep' })).resolves.toEqual({ files: ['src/deep/b.ts'], truncated: false });
  });

  it('caps results and never reaches outside', async () => {
    await expect(globWorkspaceFiles({ root: workspace.root, pattern: '**/*', maxResults: 2 })).resolves.toMatchObject({ truncated: true, files: { length: 2 } });
    expect((await toolError(globWorkspaceFiles({ root: workspace.root, pattern: '../data/*' }))).kind).toBe('path-outside-workspace');
    expect((await toolError(globWorkspaceFiles({ root: workspace.root, pattern: '/etc/*' }))).kind).toBe('path-outside-workspace');
    await symlink(path.join(workspace.base, 'data'), path.join(workspace.root, 'data-link'));
    const { files } = await globWorkspaceFiles({ root: workspace.root, pattern: '**/secret.ts' });
    expect(files).toEqual([]);
  });
});
