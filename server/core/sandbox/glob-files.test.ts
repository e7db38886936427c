import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { globWorkspaceFiles } from './glob-files.js';
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

describe('globWorkspaceFiles', () => {
  it('lists matching files relative to the root, sorted, from a folder', async () => {
    await expect(globWorkspaceFiles({ root, pattern: '**/*.ts' })).resolves.toEqual({ files: ['src/a.ts', 'src/deep/b.ts'], truncated: false });
    await expect(globWorkspaceFiles({ root, pattern: '*.ts', path: 'src/deep' })).resolves.toEqual({ files: ['src/deep/b.ts'], truncated: false });
  });

  it('caps results and never reaches outside', async () => {
    await expect(globWorkspaceFiles({ root, pattern: '**/*', maxResults: 2 })).resolves.toMatchObject({ truncated: true, files: { length: 2 } });
    expect((await toolError(globWorkspaceFiles({ root, pattern: '../data/*' }))).kind).toBe('path-outside-workspace');
    expect((await toolError(globWorkspaceFiles({ root, pattern: '/etc/*' }))).kind).toBe('path-outside-workspace');
    await symlink(path.join(base, 'data'), path.join(root, 'data-link'));
    const { files } = await globWorkspaceFiles({ root, pattern: '**/secret.ts' });
    expect(files).toEqual([]);
  });
});
