import { existsSync } from 'node:fs';
import { link, mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DiskQuota, folderBytes } from './disk-quota.js';
import { editWorkspaceFile } from './edit-file.js';
import { fileToolsFixturePerTest, toolError } from './test-support/file-tools-fixture.js';
import { writeWorkspaceFile } from './write-file.js';

const fixture = fileToolsFixturePerTest();

describe('folderBytes', () => {
  it('does not follow symbolic links and counts hard links once', async () => {
    const folder = path.join(fixture.base, 'measured');
    await mkdir(folder);
    await writeFile(path.join(folder, 'a'), Buffer.alloc(100_000, 1));
    const alone = await folderBytes(folder);
    await symlink('/usr', path.join(folder, 'usr-link'));
    await link(path.join(folder, 'a'), path.join(folder, 'a-again'));
    expect(await folderBytes(folder)).toBeLessThan(alone + 4096 + 1);
    expect(alone).toBeGreaterThanOrEqual(100_000);
    expect(await folderBytes(path.join(fixture.base, 'missing'))).toBe(0);
  });
});

describe('the disk quota on write and edit', () => {
  it('refuses a write that would take the account past its quota, and writes nothing', async () => {
    const used = await folderBytes(fixture.base);
    const quota = new DiskQuota(fixture.base, used + 10_000);
    await expect(writeWorkspaceFile({ root: fixture.root, path: 'small.txt', content: 'x'.repeat(1_000), diskQuota: quota })).resolves.toEqual({ path: 'small.txt', bytes: 1_000 });
    const error = await toolError(writeWorkspaceFile({ root: fixture.root, path: 'big.txt', content: 'x'.repeat(50_000), diskQuota: quota }));
    expect(error.kind).toBe('disk-quota');
    expect(error.message).toMatch(/^Writing 48\.8 KiB to "big\.txt" would take the account's files past its disk quota of [\d.]+ KiB; delete files to make room\.$/);
    expect(existsSync(path.join(fixture.root, 'big.txt'))).toBe(false);
    await expect(writeWorkspaceFile({ root: fixture.root, path: 'small.txt', content: 'y', diskQuota: quota })).resolves.toMatchObject({ bytes: 1 });
  });

  it('refuses an edit that would grow a file past the quota', async () => {
    const quota = new DiskQuota(fixture.base, (await folderBytes(fixture.base)) + 1_000);
    const error = await toolError(editWorkspaceFile({ root: fixture.root, path: 'notes.md', oldText: 'alpha', newText: 'a'.repeat(20_000), diskQuota: quota }));
    expect(error.kind).toBe('disk-quota');
  });
});
