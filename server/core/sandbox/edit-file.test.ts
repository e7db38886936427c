import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editWorkspaceFile } from './edit-file.js';
import { fileToolsFixturePerTest, toolError } from './test-support/file-tools-fixture.js';

const workspace = fileToolsFixturePerTest();

describe('editWorkspaceFile', () => {
  it('replaces a unique match, literally', async () => {
    await expect(editWorkspaceFile({ root: workspace.root, path: 'src/a.ts', oldText: 'const beta = 2;', newText: 'const beta = "$&";' })).resolves.toEqual({ path: 'src/a.ts', replacements: 1 });
    expect(await readFile(path.join(workspace.root, 'src', 'a.ts'), 'utf8')).toBe('const alpha = 1;\nconst beta = "$&";\nconst alphabet = 3;\n');
  });

  it('refuses no match and several matches unless replaceAll', async () => {
    expect((await toolError(editWorkspaceFile({ root: workspace.root, path: 'src/a.ts', oldText: 'gamma', newText: 'delta' }))).kind).toBe('no-match');
    expect((await toolError(editWorkspaceFile({ root: workspace.root, path: 'src/a.ts', oldText: 'const alpha', newText: 'let alpha' }))).message).toMatch(/occurs 2 times in "src\/a.ts"/);
    await expect(editWorkspaceFile({ root: workspace.root, path: 'src/a.ts', oldText: 'const ', newText: 'let ', replaceAll: true })).resolves.toEqual({ path: 'src/a.ts', replacements: 3 });
  });

  it('refuses in a read-only workspace', async () => {
    expect((await toolError(editWorkspaceFile({ root: workspace.root, path: 'src/a.ts', oldText: 'beta', newText: 'gamma', readOnly: true }))).kind).toBe('read-only');
    expect(await readFile(path.join(workspace.root, 'src', 'a.ts'), 'utf8')).toContain('beta');
  });
});
