import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editWorkspaceFile } from './edit-file.js';
import { globWorkspaceFiles } from './glob-files.js';
import { grepWorkspaceFiles } from './grep-files.js';
import { readWorkspaceFile } from './read-file.js';
import { SandboxToolError } from './sandbox-tool-error.js';
import { writeWorkspaceFile } from './write-file.js';

let base: string;
let root: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'file-tools-'));
  root = path.join(base, 'workspace');
  await mkdir(path.join(root, 'src', 'deep'), { recursive: true });
  await writeFile(path.join(root, 'src', 'a.ts'), 'const alpha = 1;\nconst beta = 2;\nconst alphabet = 3;\n');
  await writeFile(path.join(root, 'src', 'deep', 'b.ts'), 'export const alpha = "deep";\n');
  await writeFile(path.join(root, 'notes.md'), '# Notes\nalpha in prose\n');
  await writeFile(path.join(root, 'image.bin'), Buffer.from([0x89, 0x50, 0, 1, 2, 0x61, 0x6c, 0x70, 0x68, 0x61]));
  await mkdir(path.join(base, 'data'));
  await writeFile(path.join(base, 'data', 'secret.ts'), 'const alpha = "secret";\n');
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function toolError(promise: Promise<unknown>): Promise<SandboxToolError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(SandboxToolError);
  return error as SandboxToolError;
}

describe('readWorkspaceFile', () => {
  it('reads a whole file with its line count', async () => {
    await expect(readWorkspaceFile({ root, path: 'notes.md' })).resolves.toEqual({ path: 'notes.md', content: '# Notes\nalpha in prose', totalLines: 2, truncated: false });
  });

  it('reads a window of lines and says where to continue', async () => {
    await expect(readWorkspaceFile({ root, path: 'src/a.ts', offset: 2, limit: 1 })).resolves.toEqual({ path: 'src/a.ts', content: 'const beta = 2;', totalLines: 3, truncated: true, nextOffset: 3 });
    expect((await toolError(readWorkspaceFile({ root, path: 'src/a.ts', offset: 9 }))).message).toMatch(/past the end of "src\/a.ts", which has 3 lines/);
  });

  it('caps the content in bytes', async () => {
    await writeFile(path.join(root, 'long.txt'), 'é'.repeat(100));
    const result = await readWorkspaceFile({ root, path: 'long.txt', maxBytes: 11 });
    expect(result).toMatchObject({ content: 'ééééé', truncated: true });
  });

  it('refuses missing, binary, folder and outside paths', async () => {
    expect((await toolError(readWorkspaceFile({ root, path: 'missing.txt' }))).message).toBe('"missing.txt" does not exist.');
    expect((await toolError(readWorkspaceFile({ root, path: 'image.bin' }))).kind).toBe('binary-file');
    expect((await toolError(readWorkspaceFile({ root, path: 'src' }))).kind).toBe('not-a-file');
    expect((await toolError(readWorkspaceFile({ root, path: '../data/secret.ts' }))).kind).toBe('path-outside-workspace');
  });
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

describe('editWorkspaceFile', () => {
  it('replaces a unique match, literally', async () => {
    await expect(editWorkspaceFile({ root, path: 'src/a.ts', oldText: 'const beta = 2;', newText: 'const beta = "$&";' })).resolves.toEqual({ path: 'src/a.ts', replacements: 1 });
    expect(await readFile(path.join(root, 'src', 'a.ts'), 'utf8')).toBe('const alpha = 1;\nconst beta = "$&";\nconst alphabet = 3;\n');
  });

  it('refuses no match and several matches unless replaceAll', async () => {
    expect((await toolError(editWorkspaceFile({ root, path: 'src/a.ts', oldText: 'gamma', newText: 'delta' }))).kind).toBe('no-match');
    expect((await toolError(editWorkspaceFile({ root, path: 'src/a.ts', oldText: 'const alpha', newText: 'let alpha' }))).message).toMatch(/occurs 2 times in "src\/a.ts"/);
    await expect(editWorkspaceFile({ root, path: 'src/a.ts', oldText: 'const ', newText: 'let ', replaceAll: true })).resolves.toEqual({ path: 'src/a.ts', replacements: 3 });
  });

  it('refuses in a read-only workspace', async () => {
    expect((await toolError(editWorkspaceFile({ root, path: 'src/a.ts', oldText: 'beta', newText: 'gamma', readOnly: true }))).kind).toBe('read-only');
    expect(await readFile(path.join(root, 'src', 'a.ts'), 'utf8')).toContain('beta');
  });
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

describe('grepWorkspaceFiles', () => {
  it('returns path, line and text of each match, skipping binary files', async () => {
    const result = await grepWorkspaceFiles({ root, pattern: 'alpha\\b' });
    expect(result.matches).toEqual([
      { path: 'notes.md', line: 2, text: 'alpha in prose' },
      { path: 'src/a.ts', line: 1, text: 'const alpha = 1;' },
      { path: 'src/deep/b.ts', line: 1, text: 'export const alpha = "deep";' },
    ]);
    expect(result).toMatchObject({ truncated: false, skippedFiles: 1 });
  });

  it('searches one file or a glob under a folder, and caps matches', async () => {
    await expect(grepWorkspaceFiles({ root, pattern: 'ALPHA', path: 'src/a.ts', ignoreCase: true })).resolves.toMatchObject({ matches: [{ line: 1 }, { line: 3 }] });
    await expect(grepWorkspaceFiles({ root, pattern: 'alpha', path: 'src', glob: 'deep/*.ts' })).resolves.toMatchObject({ matches: [{ path: 'src/deep/b.ts' }] });
    await expect(grepWorkspaceFiles({ root, pattern: 'alpha', maxMatches: 2 })).resolves.toMatchObject({ truncated: true, matches: { length: 2 } });
  });

  it('never reads outside: symlinked files are skipped, bad patterns refused', async () => {
    await symlink(path.join(base, 'data', 'secret.ts'), path.join(root, 'secret-link.ts'));
    const result = await grepWorkspaceFiles({ root, pattern: 'secret' });
    expect(result.matches).toEqual([]);
    expect((await toolError(grepWorkspaceFiles({ root, pattern: 'x', path: '../data' }))).kind).toBe('path-outside-workspace');
    expect((await toolError(grepWorkspaceFiles({ root, pattern: '(' }))).kind).toBe('invalid-input');
  });
});
