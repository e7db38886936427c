import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { SandboxToolError } from '../sandbox-tool-error.js';

/** A workspace with a few text files, a binary file, and a data folder beside it. */
export async function createFileToolsFixture(): Promise<{ base: string; root: string; remove: () => Promise<void> }> {
  const base = await mkdtemp(path.join(tmpdir(), 'file-tools-'));
  const root = path.join(base, 'workspace');
  await mkdir(path.join(root, 'src', 'deep'), { recursive: true });
  await writeFile(path.join(root, 'src', 'a.ts'), 'const alpha = 1;\nconst beta = 2;\nconst alphabet = 3;\n');
  await writeFile(path.join(root, 'src', 'deep', 'b.ts'), 'export const alpha = "deep";\n');
  await writeFile(path.join(root, 'notes.md'), '# Notes\nalpha in prose\n');
  await writeFile(path.join(root, 'image.bin'), Buffer.from([0x89, 0x50, 0, 1, 2, 0x61, 0x6c, 0x70, 0x68, 0x61]));
  await mkdir(path.join(base, 'data'));
  await writeFile(path.join(base, 'data', 'secret.ts'), 'const alpha = "secret";\n');
  return { base, root, remove: () => rm(base, { recursive: true, force: true }) };
}

/**
 * The fixture above, made afresh for each test of the enclosing file or `describe` and removed
 * after it. Read `root` and `base` inside a test, not when the block is declared.
 */
export function fileToolsFixturePerTest(): { readonly root: string; readonly base: string } {
  let fixture: Awaited<ReturnType<typeof createFileToolsFixture>> | undefined;
  beforeEach(async () => {
    fixture = await createFileToolsFixture();
  });
  afterEach(async () => {
    await fixture?.remove();
    fixture = undefined;
  });
  const current = () => {
    if (!fixture) throw new Error('fileToolsFixturePerTest: the workspace exists only while a test runs');
    return fixture;
  };
  return {
    get root() {
      return current().root;
    },
    get base() {
      return current().base;
    },
  };
}

/** The SandboxToolError a tool call rejects with. */
export async function toolError(promise: Promise<unknown>): Promise<SandboxToolError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(SandboxToolError);
  return error as SandboxToolError;
}
