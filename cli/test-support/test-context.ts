import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll } from 'vitest';
import type { CliContext } from '../cli-context.js';

// Every home folder made for a test file, removed when the file's tests are done.
const homeFolders: string[] = [];
afterAll(async () => {
  await Promise.all(homeFolders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A CLI context for in-process tests: captured output, a temporary config folder. */
export interface TestContext extends CliContext {
  output(): string;
  errors(): string;
  /** Triggers `waitForShutdown` as a signal would. */
  shutdown(signal?: string): void;
}

export async function createTestContext(options: { stdin?: string; env?: Record<string, string> } = {}): Promise<TestContext> {
  const homeDir = await mkdtemp(join(tmpdir(), 'harness-cli-home-'));
  homeFolders.push(homeDir);
  let stdout = '';
  let stderr = '';
  let triggerShutdown: (signal: string) => void = () => {};
  const shutdown = new Promise<string>((resolve) => {
    triggerShutdown = resolve;
  });
  return {
    env: { XDG_CONFIG_HOME: join(homeDir, 'config'), ...options.env },
    homeDir,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: Readable.from([options.stdin ?? '']),
    waitForShutdown: () => shutdown,
    output: () => stdout,
    errors: () => stderr,
    shutdown: (signal = 'SIGTERM') => triggerShutdown(signal),
  };
}
