import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { grepWorkspaceFiles } from './grep-files.js';
import { fileToolsFixturePerTest, toolError } from './test-support/file-tools-fixture.js';

const workspace = fileToolsFixturePerTest();

describe('grepWorkspaceFiles', () => {
  it('returns path, line and text of each match, skipping binary files', async () => {
    const result = await grepWorkspaceFiles({ root: workspace.root, pattern: 'alpha\\b' });
    expect(result.matches).toEqual([
      { path: 'notes.md', line: 2, text: 'alpha in prose' },
      { path: 'src/a.ts', line: 1, text: 'const alpha = 1;' },
      { path: 'src/deep/b.ts', line: 1, text: 'export const alpha = "deep";' },
    ]);
    expect(result).toMatchObject({ truncated: false, skippedFiles: 1 });
  });

  it('searches one file or a glob under a folder, and caps matches', async () => {
    await expect(grepWorkspaceFiles({ root: workspace.root, pattern: 'ALPHA', path: 'src/a.ts', ignoreCase: true })).resolves.toMatchObject({ matches: [{ line: 1 }, { line: 3 }] });
    await expect(grepWorkspaceFiles({ root: workspace.root, pattern: 'alpha', path: 'src', glob: 'deep/*.ts' })).resolves.toMatchObject({ matches: [{ path: 'src/deep/b.ts' }] });
    await expect(grepWorkspaceFiles({ root: workspace.root, pattern: 'alpha', maxMatches: 2 })).resolves.toMatchObject({ truncated: true, matches: { length: 2 } });
  });

  it('never reads outside: symlinked files are skipped, bad patterns refused', async () => {
    await symlink(path.join(workspace.base, 'data', 'secret.ts'), path.join(workspace.root, 'secret-link.ts'));
    const result = await grepWorkspaceFiles({ root: workspace.root, pattern: 'secret' });
    expect(result.matches).toEqual([]);
    expect((await toolError(grepWorkspaceFiles({ root: workspace.root, pattern: 'x', path: '../data' }))).kind).toBe('path-outside-workspace');
    expect((await toolError(grepWorkspaceFiles({ root: workspace.root, pattern: '(' }))).kind).toBe('invalid-input');
  });
});

describe('grepWorkspaceFiles with patterns a backtracking engine chokes on', () => {
  it('answers ^(a+)+$ on a long run of a then ! (no match there) at once', async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path.join(workspace.root, 'evil.txt'), `${'a'.repeat(60)}!\n${'a'.repeat(30)}\n`);
    // A backtracking engine needs about 2^60 steps for the first line: this would never end.
    const result = await grepWorkspaceFiles({ root: workspace.root, pattern: '^(a+)+$', path: 'evil.txt' });
    expect(result.matches).toEqual([{ path: 'evil.txt', line: 2, text: 'a'.repeat(30) }]);
  });

  it('says which syntax a refused pattern is in', async () => {
    expect((await toolError(grepWorkspaceFiles({ root: workspace.root, pattern: 'a(?=b)' }))).message).toMatch(/pattern is not a valid regular expression for grep \(ripgrep syntax\).*look-around/);
  });

  it('stops a search past its deadline', async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path.join(workspace.root, 'big.txt'), 'x'.repeat(1024 * 1024));
    const error = await toolError(grepWorkspaceFiles({ root: workspace.root, pattern: 'y', timeoutMs: 0 }));
    expect(error.kind).toBe('timed-out');
  });
});
