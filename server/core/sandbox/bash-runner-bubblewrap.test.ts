import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runBash } from './bash-runner.js';
import { type BubblewrapStatus, probeBubblewrap } from './bubblewrap-probe.js';
import { liveProcessesWith } from './test-support/process-table.js';
import { validateSandboxConfig } from './sandbox-config-schema.js';
import { defaultSandboxSettings } from './sandbox-settings.js';

// Isolation tests: they need bubblewrap and FAIL with the probe's reason without it, never skip.
let bubblewrap: BubblewrapStatus;
let base: string;
let workspace: string;
let dataFolder: string;
let server: Server;
let port: number;
const sockets = new Set<Socket>();
const limits = validateSandboxConfig({ timeoutMs: 20_000 });

function requireBubblewrap(): BubblewrapStatus {
  if (!bubblewrap.available) throw new Error(`bubblewrap is unavailable, isolation cannot be tested: ${bubblewrap.reason}`);
  return bubblewrap;
}

beforeAll(async () => {
  bubblewrap = await probeBubblewrap();
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'bash-bubblewrap-'));
  workspace = path.join(base, 'bucket', 'notes');
  dataFolder = path.join(base, 'data');
  await mkdir(workspace, { recursive: true });
  await mkdir(dataFolder);
  await writeFile(path.join(dataFolder, 'accounts.json'), '{"secret": true}');
  await writeFile(path.join(workspace, 'readme.md'), 'inside');
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('runBash under bubblewrap', () => {
  it('runs in /workspace, reads and writes the workspace', async () => {
    const result = await runBash({ command: 'pwd; echo "$HOME"; cat readme.md; echo made > made.txt', workingFolder: workspace, limits, bubblewrap: requireBubblewrap() });
    expect(result).toMatchObject({ exitCode: 0, stdout: '/workspace\n/workspace\ninside', stderr: '' });
    expect(await readFile(path.join(workspace, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('cannot read the data folder or /root outside the workspace', async () => {
    const secretPath = path.join(dataFolder, 'accounts.json');
    // The same command outside bubblewrap can read it: the refusal below is the sandbox's doing.
    const unconfined = await runBash({ command: `cat ${secretPath}`, workingFolder: workspace, limits, bubblewrap: { available: false, reason: 'control' }, settings: { ...defaultSandboxSettings, allowUnsandboxedBash: true } });
    expect(unconfined.stdout).toBe('{"secret": true}');

    const confined = await runBash({ command: `cat ${secretPath}; ls /root; ls ../bucket`, workingFolder: workspace, limits, bubblewrap: requireBubblewrap() });
    expect(confined.exitCode).not.toBe(0);
    expect(confined.stdout).toBe('');
    expect(confined.stderr).toContain(`${secretPath}: No such file or directory`);
    expect(confined.stderr).toContain("cannot access '/root': No such file or directory");
    expect(confined.stderr).toContain("cannot access '../bucket': No such file or directory");
  });

  it('cannot write to system folders', async () => {
    const result = await runBash({ command: 'touch /usr/bin/planted', workingFolder: workspace, limits, bubblewrap: requireBubblewrap() });
    expect(result.exitCode).not.toBe(0);
    expect(existsSync('/usr/bin/planted')).toBe(false);
  });

  it('cannot open a network connection unless the sandbox allows network', async () => {
    const command = `echo hello > /dev/tcp/127.0.0.1/${port} && echo connected`;
    const offline = await runBash({ command, workingFolder: workspace, limits, bubblewrap: requireBubblewrap() });
    expect(offline.exitCode).not.toBe(0);
    expect(offline.stdout).toBe('');
    const online = await runBash({ command, workingFolder: workspace, limits: { ...limits, network: true }, bubblewrap: requireBubblewrap() });
    expect(online).toMatchObject({ exitCode: 0, stdout: 'connected\n' });
  });

  it('passes only allow-listed variables', async () => {
    const result = await runBash({
      command: 'echo "[$ALLOWED_TOKEN][$SERVICE_SECRET]"',
      workingFolder: workspace,
      limits: { ...limits, environment: ['ALLOWED_TOKEN'] },
      bubblewrap: requireBubblewrap(),
      settings: { ...defaultSandboxSettings, passEnvironment: ['ALLOWED_TOKEN'] },
      environment: { ALLOWED_TOKEN: 'visible', SERVICE_SECRET: 'hidden' },
    });
    expect(result.stdout).toBe('[visible][]\n');
  });

  it('kills every process of the sandbox on timeout', async () => {
    const marker = `${Math.floor(Math.random() * 1e6)}`;
    const command = `sleep 400.${marker} & sleep 400.${marker} & wait`;
    const result = await runBash({ command, workingFolder: workspace, limits: { ...limits, timeoutMs: 500 }, bubblewrap: requireBubblewrap() });
    expect(result).toMatchObject({ timedOut: true, exitCode: null });
    await vi.waitFor(async () => expect(await liveProcessesWith(`400.${marker}`)).toEqual([]));
  });

  it('gives a stateless call a fresh empty /workspace each time', async () => {
    const first = await runBash({ command: 'ls -A; touch left-behind; ls -A', limits, bubblewrap: requireBubblewrap() });
    const second = await runBash({ command: 'ls -A', limits, bubblewrap: requireBubblewrap() });
    expect(first.stdout).toBe('left-behind\n');
    expect(second).toMatchObject({ exitCode: 0, stdout: '' });
  });
});
