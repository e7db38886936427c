import { open, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SandboxToolError } from './sandbox-tool-error.js';
import { loadTextFileBeneath } from './text-files.js';
import { normalizeWorkspacePath } from './workspace-paths.js';
import { withWorkspaceRoot } from './workspace-root.js';
import { writeWorkspaceFile } from './write-file.js';

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'workspace-paths-'));
  root = path.join(base, 'workspace');
  outside = path.join(base, 'data');
  await mkdir(path.join(root, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
  await writeFile(path.join(root, 'src', 'index.ts'), 'export {};');
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const load = (requested: string) => withWorkspaceRoot(root, (folder) => loadTextFileBeneath(folder, requested));

async function refusal(requested: string): Promise<SandboxToolError> {
  const error = await load(requested).then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(SandboxToolError);
  expect((error as SandboxToolError).kind).toBe('path-outside-workspace');
  return error as SandboxToolError;
}

describe('normalizeWorkspacePath', () => {
  it('folds relative paths inside the root', () => {
    expect(normalizeWorkspacePath('src/index.ts')).toEqual({ segments: ['src', 'index.ts'], relativePath: 'src/index.ts' });
    expect(normalizeWorkspacePath('src/../new/file.md').relativePath).toBe('new/file.md');
    expect(normalizeWorkspacePath('.')).toEqual({ segments: [], relativePath: '.' });
  });
});

describe('withPathBeneath (through the text loader)', () => {
  it('refuses ".." escapes and absolute paths', async () => {
    expect((await refusal('../data/secret.txt')).message).toBe('"../data/secret.txt" leads outside the workspace; paths must stay inside the workspace root.');
    await refusal('src/../../data/secret.txt');
    expect((await refusal('/etc/passwd')).message).toMatch(/is an absolute path/);
    await refusal(path.join(root, 'src/index.ts'));
  });

  it('refuses symlinks that lead outside, to /etc or to another folder, and relative links that climb out', async () => {
    await symlink('/etc', path.join(root, 'etc-link'));
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'secret-link'));
    await symlink(outside, path.join(root, 'data-link'));
    await symlink('../data', path.join(root, 'climb'));
    await symlink('../../data/secret.txt', path.join(root, 'src', 'climb.txt'));
    expect((await refusal('etc-link/passwd')).message).toMatch(/symbolic link that leads outside the workspace/);
    await refusal('etc-link');
    await refusal('secret-link');
    await refusal('climb/secret.txt');
    await refusal('src/climb.txt');
    const written = await withWorkspaceRoot(root, () => writeWorkspaceFile({ root, path: 'data-link/new-file.txt', content: 'x' })).catch((error: unknown) => error);
    expect((written as SandboxToolError).kind).toBe('path-outside-workspace');
  });

  it('refuses a dangling symlink to an outside path, so a write cannot create its target', async () => {
    await symlink(path.join(outside, 'not-yet.txt'), path.join(root, 'dangling'));
    await expect(writeWorkspaceFile({ root, path: 'dangling', content: 'x' })).rejects.toMatchObject({ kind: 'path-outside-workspace' });
    await expect(readFile(path.join(outside, 'not-yet.txt'))).rejects.toThrow();
  });

  it('follows symlinks that stay inside the root, by hand, and refuses loops', async () => {
    await symlink('src', path.join(root, 'source'));
    await symlink('../src/index.ts', path.join(root, 'src', 'self.ts'));
    await expect(load('source/index.ts')).resolves.toEqual({ relativePath: 'source/index.ts', text: 'export {};' });
    await expect(load('source/self.ts')).resolves.toMatchObject({ text: 'export {};' });
    await symlink('loop-b', path.join(root, 'loop-a'));
    await symlink('loop-a', path.join(root, 'loop-b'));
    expect((await refusal('loop-a')).message).toMatch(/symbolic link loop/);
  });

  it('refuses a workspace folder reached through a symlink, even one inside the base', async () => {
    await symlink('/', path.join(root, 'link'));
    const location = { base: root, path: 'link' };
    await expect(withWorkspaceRoot(location, (folder) => loadTextFileBeneath(folder, 'etc/passwd'))).rejects.toMatchObject({ kind: 'path-outside-workspace', message: expect.stringContaining('goes through a symbolic link') as unknown });
    await expect(withWorkspaceRoot({ base: root, path: 'link/etc' }, async () => 'opened')).rejects.toMatchObject({ kind: 'path-outside-workspace' });
    await expect(withWorkspaceRoot({ base: root, path: 'src' }, (folder) => loadTextFileBeneath(folder, 'index.ts'))).resolves.toMatchObject({ text: 'export {};' });
  });

  it('does not hang on a FIFO', async () => {
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    await expect(load('pipe')).rejects.toMatchObject({ kind: 'not-a-file' });
    // The FIFO is still there and nobody is blocked on it.
    await (await open(path.join(root, 'src', 'index.ts'), 'r')).close();
  });
});
