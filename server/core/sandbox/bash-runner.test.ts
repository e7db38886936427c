import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runBash } from './bash-runner.js';
import type { BubblewrapStatus } from './bubblewrap-probe.js';
import { isAlive, liveProcessesWith } from './test-support/process-table.js';
import { validateSandboxConfig } from './sandbox-config-schema.js';
import { defaultSandboxSettings, type SandboxSettings } from './sandbox-settings.js';

// These tests cover the runner's own limits; bash-runner-bubblewrap.test.ts covers isolation.
const noBubblewrap: BubblewrapStatus = { available: false, reason: 'not used in this test' };
const limits = validateSandboxConfig({ timeoutMs: 20_000, maxOutputBytes: 1024 });
// Without bubblewrap bash refuses to run unless the operator opts in; these tests opt in.
const settings: SandboxSettings = { ...defaultSandboxSettings, allowUnsandboxedBash: true };

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'bash-runner-'));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('runBash without bubblewrap', () => {
  it('runs bash -c in the working folder and reports exit code and output', async () => {
    const result = await runBash({ command: 'pwd; echo oops >&2; exit 3', workingFolder: folder, limits, bubblewrap: noBubblewrap, settings });
    expect(result).toMatchObject({ exitCode: 3, stdout: `${await realpath(folder)}\n`, stderr: 'oops\n', timedOut: false, truncated: false });
  });

  it('kills the whole process group on timeout, background children included', async () => {
    const command = 'echo $$ > pids; sleep 100 & echo $! >> pids; sleep 100 & echo $! >> pids; wait';
    const result = await runBash({ command, workingFolder: folder, limits: { ...limits, timeoutMs: 300 }, bubblewrap: noBubblewrap, settings });
    expect(result).toMatchObject({ timedOut: true, exitCode: null });
    const pids = (await readFile(path.join(folder, 'pids'), 'utf8')).trim().split('\n').map(Number);
    expect(pids).toHaveLength(3);
    await vi.waitFor(async () => {
      expect(await Promise.all(pids.map(isAlive))).toEqual([false, false, false]);
    });
  });

  it('does not leave background processes behind when bash exits', async () => {
    const marker = `${Math.floor(Math.random() * 1e6)}`;
    const result = await runBash({ command: `sleep 300.${marker} & echo started`, workingFolder: folder, limits, bubblewrap: noBubblewrap, settings });
    expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n', timedOut: false });
    await vi.waitFor(async () => expect(await liveProcessesWith(`300.${marker}`)).toEqual([]));
  });

  it('caps stdout and stderr together and marks the cut', async () => {
    const result = await runBash({ command: 'head -c 3000 /dev/zero | tr "\\0" a; echo done >&2', workingFolder: folder, limits, bubblewrap: noBubblewrap, settings });
    expect(result.truncated).toBe(true);
    expect(result.stdout.startsWith('a'.repeat(1024))).toBe(true);
    expect(result.stdout).toContain('[output truncated: 1976 more bytes of stdout past the 1024-byte limit]');
    expect(result.stderr).toBe('[output truncated: 5 more bytes of stderr past the 1024-byte limit]');
  });

  it('passes only allow-listed variables, a minimal PATH and LANG, and HOME as the workspace', async () => {
    const environment = { ALLOWED_TOKEN: 'visible', SERVICE_SECRET: 'hidden', PATH: '/opt/evil/bin', HOME: '/root' };
    const result = await runBash({
      command: 'env | sort',
      workingFolder: folder,
      limits: { ...limits, environment: ['ALLOWED_TOKEN', 'HOME', 'MISSING'] },
      bubblewrap: noBubblewrap,
      settings: { ...settings, passEnvironment: ['ALLOWED_TOKEN', 'HOME', 'MISSING'] },
      environment,
    });
    const variables = result.stdout.trim().split('\n').filter((line) => !/^(PWD|SHLVL|_)=/.test(line));
    expect(variables).toEqual([`ALLOWED_TOKEN=visible`, `HOME=${folder}`, 'LANG=C.UTF-8', 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin']);
  });

  it('gives a stateless call a fresh folder, deleted afterwards', async () => {
    const first = await runBash({ command: 'pwd; ls -A; touch left-behind', limits, bubblewrap: noBubblewrap, settings });
    const second = await runBash({ command: 'pwd; ls -A', limits, bubblewrap: noBubblewrap, settings });
    const [firstFolder] = first.stdout.split('\n');
    const [secondFolder, listing] = second.stdout.split('\n');
    expect(firstFolder).not.toBe(secondFolder);
    expect(listing).toBe('');
    expect(existsSync(firstFolder ?? '')).toBe(false);
    expect(existsSync(secondFolder ?? '')).toBe(false);
  });
});
