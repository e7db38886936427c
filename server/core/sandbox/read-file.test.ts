import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readWorkspaceFile } from './read-file.js';
import { fileToolsFixturePerTest, toolError } from './test-support/file-tools-fixture.js';

const workspace = fileToolsFixturePerTest();

describe('readWorkspaceFile', () => {
  it('reads a whole file with its line count', async () => {
    await expect(readWorkspaceFile({ root: workspace.root, path: 'notes.md' })).resolves.toEqual({ path: 'notes.md', content: '# Notes\nalpha in prose', totalLines: 2, truncated: false });
  });

  it('reads a window of lines and says where to continue', async () => {
    await expect(readWorkspaceFile({ root: workspace.root, path: 'src/a.ts', offset: 2, limit: 1 })).resolves.toEqual({ path: 'src/a.ts', content: 'const beta = 2;', totalLines: 3, truncated: true, nextOffset: 3 });
    expect((await toolError(readWorkspaceFile({ root: workspace.root, path: 'src/a.ts', offset: 9 }))).message).toMatch(/past the end of "src\/a.ts", which has 3 lines/);
  });

  it('caps the content in bytes', async () => {
    await writeFile(path.join(workspace.root, 'long.txt'), 'é'.repeat(100));
    const result = await readWorkspaceFile({ root: workspace.root, path: 'long.txt', maxBytes: 11 });
    expect(result).toMatchObject({ content: 'ééééé', truncated: true });
  });

  it('refuses missing, binary, folder and outside paths', async () => {
    expect((await toolError(readWorkspaceFile({ root: workspace.root, path: 'missing.txt' }))).message).toBe('"missing.txt" does not exist.');
    expect((await toolError(readWorkspaceFile({ root: workspace.root, path: 'image.bin' }))).kind).toBe('binary-file');
    expect((await toolError(readWorkspaceFile({ root: workspace.root, path: 'src' }))).kind).toBe('not-a-file');
    expect((await toolError(readWorkspaceFile({ root: workspace.root, path: '../data/secret.ts' }))).kind).toBe('path-outside-workspace');
  });
});
