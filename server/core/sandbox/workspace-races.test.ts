import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { globWorkspaceFiles } from './glob-files.js';
import { readWorkspaceFile } from './read-file.js';
import { SandboxToolError } from './sandbox-tool-error.js';

/**
 * Check-then-use races: a process swaps a workspace entry between a real file or folder and
 * a symlink to the outside, as fast as it can, while the file tools read through it. The
 * tools may refuse or succeed, but must never return what is outside.
 */

const iterations = 1500;
let base: string;
let root: string;
let swapper: ChildProcess | undefined;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'workspace-races-'));
  root = path.join(base, 'workspace');
  await mkdir(path.join(base, 'outside'), { recursive: true });
  await writeFile(path.join(base, 'outside', 'secret.txt'), 'OUTSIDE SECRET\n');
  await mkdir(path.join(root, 'folder'), { recursive: true });
  await writeFile(path.join(root, 'folder', 'secret.txt'), 'inside\n');
  await writeFile(path.join(root, 'secret.txt'), 'inside\n');
});

afterEach(async () => {
  if (swapper?.pid !== undefined && swapper.exitCode === null) {
    const exited = new Promise((resolve) => swapper?.once('exit', resolve));
    process.kill(-swapper.pid, 'SIGKILL');
    await exited;
  }
  swapper = undefined;
  await rm(base, { recursive: true, force: true, maxRetries: 5 });
});

/**
 * Swap `name` between its real self and a symlink to `target`,
 * forever, with atomic renames, in another process (truly in parallel with the tools).
 * Resolves once the swapping runs.
 */
async function startSwapping(name: string, target: string): Promise<void> {
  const script = `
    const { renameSync, symlinkSync, unlinkSync } = require('node:fs');
    const [root, name, target] = process.argv.slice(1);
    process.chdir(root);
    for (let round = 0; ; round += 1) {
      symlinkSync(target, name + '.link');
      renameSync(name, name + '.aside');
      renameSync(name + '.link', name);
      unlinkSync(name);
      renameSync(name + '.aside', name);
      if (round === 10) process.stdout.write('running');
    }`;
  swapper = spawn(process.execPath, ['-e', script, root, name, target], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  const exited = once(swapper, 'exit').then(() => {
    throw new Error('the swapping process stopped');
  });
  await Promise.race([once(swapper.stdout as NodeJS.ReadableStream, 'data'), exited]);
}

async function attempt<T>(body: () => Promise<T>): Promise<T | SandboxToolError> {
  return body().catch((error: unknown) => {
    if (error instanceof SandboxToolError) return error;
    throw error;
  });
}

describe('file tools under a symlink swap race', () => {
  it('read never returns an outside file swapped in for the file itself', async () => {
    await startSwapping('secret.txt', path.join(base, 'outside', 'secret.txt'));
    let inside = 0;
    for (let index = 0; index < iterations; index += 1) {
      const result = await attempt(() => readWorkspaceFile({ root, path: 'secret.txt' }));
      if (result instanceof SandboxToolError) continue;
      expect(result.content).not.toContain('OUTSIDE');
      inside += 1;
    }
    expect(inside).toBeGreaterThan(0);
  });

  it('read never returns an outside file through a folder swapped for a symlink', async () => {
    await startSwapping('folder', path.join(base, 'outside'));
    let inside = 0;
    for (let index = 0; index < iterations; index += 1) {
      const result = await attempt(() => readWorkspaceFile({ root, path: 'folder/secret.txt' }));
      if (result instanceof SandboxToolError) continue;
      expect(result.content).not.toContain('OUTSIDE');
      inside += 1;
    }
    expect(inside).toBeGreaterThan(0);
  });

  it('glob never lists through a folder swapped for a symlink', async () => {
    await writeFile(path.join(base, 'outside', 'only-outside.txt'), 'x');
    await startSwapping('folder', path.join(base, 'outside'));
    for (let index = 0; index < iterations / 5; index += 1) {
      const result = await attempt(() => globWorkspaceFiles({ root, pattern: '**/*' }));
      if (result instanceof SandboxToolError) continue;
      expect(result.files).not.toContain('folder/only-outside.txt');
    }
  });
});
