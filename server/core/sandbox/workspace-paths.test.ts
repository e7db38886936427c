import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SandboxToolError } from './sandbox-tool-error.js';
import { resolveWorkspacePath } from './workspace-paths.js';

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

async function refusal(requested: string): Promise<SandboxToolError> {
  const error = await resolveWorkspacePath(root, requested).then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(SandboxToolError);
  expect((error as SandboxToolError).kind).toBe('path-outside-workspace');
  return error as SandboxToolError;
}

describe('resolveWorkspacePath', () => {
  it('resolves relative paths inside the root, existing or not', async () => {
    await expect(resolveWorkspacePath(root, 'src/index.ts')).resolves.toMatchObject({ relativePath: 'src/index.ts' });
    await expect(resolveWorkspacePath(root, 'src/../new/file.md')).resolves.toMatchObject({ relativePath: 'new/file.md' });
    await expect(resolveWorkspacePath(root, '.')).resolves.toMatchObject({ relativePath: '.' });
  });

  it('refuses ".." escapes and absolute paths', async () => {
    expect((await refusal('../data/secret.txt')).message).toBe('"../data/secret.txt" leads outside the workspace; paths must stay inside the workspace root.');
    await refusal('src/../../data/secret.txt');
    expect((await refusal('/etc/passwd')).message).toMatch(/is an absolute path/);
    await refusal(path.join(root, 'src/index.ts'));
  });

  it('refuses symlinks that lead outside, to /etc or to another folder', async () => {
    await symlink('/etc', path.join(root, 'etc-link'));
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'secret-link'));
    await symlink(outside, path.join(root, 'data-link'));
    expect((await refusal('etc-link/passwd')).message).toMatch(/symbolic link that leads outside the workspace/);
    await refusal('etc-link');
    await refusal('secret-link');
    await refusal('data-link/new-file.txt');
  });

  it('refuses a dangling symlink, which a write would follow', async () => {
    await symlink(path.join(outside, 'not-yet.txt'), path.join(root, 'dangling'));
    expect((await refusal('dangling')).message).toMatch(/target does not exist/);
  });

  it('follows a symlink that stays inside the root', async () => {
    await symlink('src', path.join(root, 'source'));
    const resolved = await resolveWorkspacePath(root, 'source/index.ts');
    expect(resolved.relativePath).toBe('source/index.ts');
    expect(resolved.absolutePath.endsWith(path.join('src', 'index.ts'))).toBe(true);
  });
});
