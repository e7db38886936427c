import { mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runBash } from './bash-runner.js';
import { type BubblewrapStatus, probeBubblewrap } from './bubblewrap-probe.js';
import { DiskQuota } from './disk-quota.js';
import { type CgroupSupport, probeCgroups } from './sandbox-cgroups.js';
import { validateSandboxConfig } from './sandbox-config-schema.js';
import { defaultSandboxSettings, type SandboxSettings } from './sandbox-settings.js';
import { SandboxToolError } from './sandbox-tool-error.js';
import { liveProcessesWith } from './test-support/process-table.js';

// Resource limits of one bash call, under bubblewrap as the service runs it. They FAIL with
// the probe's reason when bubblewrap (or, for a root service, cgroups) is missing: never skip.
const mebibyte = 1024 * 1024;
const limits = validateSandboxConfig({ timeoutMs: 20_000 });
const settings = (resources: Partial<SandboxSettings['resources']> = {}): SandboxSettings => ({
  ...defaultSandboxSettings,
  resources: { ...defaultSandboxSettings.resources, ...resources },
});
let bubblewrap: BubblewrapStatus;
let cgroups: CgroupSupport;
let folder: string;

function requireBubblewrap(): BubblewrapStatus {
  if (!bubblewrap.available) throw new Error(`bubblewrap is unavailable, limits cannot be tested: ${bubblewrap.reason}`);
  return bubblewrap;
}

function requireCgroups(): CgroupSupport {
  if (!cgroups.available) throw new Error(`per-call cgroups are unavailable: ${cgroups.reason}`);
  return cgroups;
}

beforeAll(async () => {
  [bubblewrap, cgroups] = await Promise.all([probeBubblewrap(), probeCgroups()]);
});

beforeEach(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'bash-limits-'));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const kinds = (result: { limitsHit: { kind: string }[] }) => result.limitsHit.map((hit) => hit.kind);

describe('runBash without bubblewrap', () => {
  it('refuses to run and says how to install bubblewrap, unless the operator opted in', async () => {
    const missing: BubblewrapStatus = { available: false, reason: 'bwrap was not found on PATH (Debian package: bubblewrap)' };
    const refusal = await runBash({ command: 'touch ran', workingFolder: folder, limits, bubblewrap: missing }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SandboxToolError);
    expect((refusal as SandboxToolError).kind).toBe('sandbox-unavailable');
    expect((refusal as SandboxToolError).message).toContain('apt-get install bubblewrap');
    expect(await readdir(folder)).toEqual([]);

    const optedIn = await runBash({ command: 'touch ran', workingFolder: folder, limits, bubblewrap: missing, settings: { ...defaultSandboxSettings, allowUnsandboxedBash: true } });
    expect(optedIn.exitCode).toBe(0);
    expect(await readdir(folder)).toEqual(['ran']);
  });
});

describe('runBash limits under bubblewrap', () => {
  it('sets per-process limits inside the sandbox: processes, file size, CPU time, no core files', async () => {
    const result = await runBash({ command: 'ulimit -u; ulimit -f; ulimit -t; ulimit -c', workingFolder: folder, limits: { ...limits, timeoutMs: 5_000 }, bubblewrap: requireBubblewrap(), settings: settings({ maxProcesses: 40, fileSizeBytes: 2 * mebibyte }) });
    expect(result.stdout).toBe('40\n2048\n5\n0\n');
  });

  it('gives /tmp a fixed size and says so when it is full', async () => {
    const result = await runBash({ command: 'head -c 3000000 /dev/zero > /tmp/big; df --output=size -B1 /tmp /dev/shm | tail -2', workingFolder: folder, limits, bubblewrap: requireBubblewrap(), settings: settings({ tmpBytes: 2 * mebibyte }) });
    expect(result.stdout.trim().split(/\s+/)).toEqual([String(2 * mebibyte), String(2 * mebibyte)]);
    expect(kinds(result)).toEqual(['tmp-full']);
    expect(result.limitsHit[0]?.message).toContain('/tmp and /dev/shm hold at most 2 MiB');
  });

  it('cannot write to /dev, whose tmpfs has no size', async () => {
    const result = await runBash({ command: 'echo x > /dev/planted', workingFolder: folder, limits, bubblewrap: requireBubblewrap() });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('Read-only file system');
  });

  it('stops a file at the file size limit', async () => {
    const result = await runBash({ command: 'head -c 3000000 /dev/zero > big.bin; echo after', workingFolder: folder, limits, bubblewrap: requireBubblewrap(), settings: settings({ fileSizeBytes: mebibyte }) });
    expect(kinds(result)).toEqual(['file-size']);
    expect(result.limitsHit[0]?.message).toBe('A write was stopped: one file may be at most 1 MiB.');
  });

  it('refuses memory past the limit per process when there is no cgroup', async () => {
    const command = 'python3 -c "x = bytearray(200 * 1024 * 1024)" || perl -e \'my $x = "a" x (200 * 1024 * 1024)\'';
    const result = await runBash({ command, workingFolder: folder, limits, bubblewrap: requireBubblewrap(), settings: settings({ memoryBytes: 64 * mebibyte }) });
    expect(result.exitCode).not.toBe(0);
    expect(kinds(result)).toContain('memory');
  });

  it('kills a call past its memory limit when a cgroup holds it', async () => {
    const command = 'python3 -c "x = bytearray(200 * 1024 * 1024); x[::4096] = b\\"a\\" * len(x[::4096])"';
    const result = await runBash({ command, workingFolder: folder, limits, bubblewrap: requireBubblewrap(), cgroups: requireCgroups(), settings: settings({ memoryBytes: 64 * mebibyte }) });
    expect(result.exitCode).not.toBe(0);
    expect(result.limitsHit[0]).toEqual({ kind: 'memory', message: 'A process of this bash call was killed: the call went past its 64 MiB memory limit.' });
  });

  it('holds a call to its process limit: a bounded fork storm gets no more than that', async () => {
    const marker = `${Math.floor(Math.random() * 1e6)}`;
    // 200 children asked for, 32 processes allowed: forks past the limit fail with EAGAIN.
    // perl, not bash: bash retries a failed fork for 15 s before giving up.
    const storm = `my @children; for (1 .. 200) { my $pid = fork(); if (!defined $pid) { print STDERR "fork failed: $!\\n"; last } if ($pid == 0) { sleep 30; exit 0 } push @children, $pid } opendir(my $proc, "/proc"); print scalar(grep { /^\\d+$/ } readdir($proc)), "\\n"; # ${marker}`;
    const result = await runBash({ command: `perl -e '${storm}'`, workingFolder: folder, limits, bubblewrap: requireBubblewrap(), cgroups: requireCgroups(), settings: settings({ maxProcesses: 32 }) });
    const seen = Number(result.stdout.trim());
    expect(result.stderr).toContain('fork failed: Resource temporarily unavailable');
    expect(seen).toBeGreaterThan(2);
    expect(seen).toBeLessThanOrEqual(32);
    expect(kinds(result)).toContain('processes');
    await vi.waitFor(async () => expect(await liveProcessesWith(marker)).toEqual([]));
  });

  it('stops the call when its signal aborts, with every process it started', async () => {
    const marker = `${Math.floor(Math.random() * 1e6)}`;
    const controller = new AbortController();
    const running = runBash({ command: `sleep 60.${marker} & echo started; wait`, workingFolder: folder, limits, bubblewrap: requireBubblewrap(), signal: controller.signal });
    await vi.waitFor(async () => expect(await liveProcessesWith(`60.${marker}`)).not.toEqual([]));
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ aborted: true, timedOut: false, exitCode: null });
    expect(kinds(result)).toEqual(['aborted']);
    await vi.waitFor(async () => expect(await liveProcessesWith(`60.${marker}`)).toEqual([]));
  });
});

describe('runBash and the disk quota', () => {
  it('kills a call whose files go past the account quota', async () => {
    const quota = new DiskQuota(folder, mebibyte);
    const command = 'for i in $(seq 1 400); do head -c 65536 /dev/urandom > part-$i; sleep 0.05; done; echo finished';
    const result = await runBash({ command, workingFolder: path.join(folder), limits, bubblewrap: requireBubblewrap(), diskQuota: quota });
    expect(result.stdout).not.toContain('finished');
    expect(result.limitsHit[0]).toEqual({ kind: 'disk-quota', message: "bash was killed: the account's files went past its disk quota of 1 MiB. Delete files to make room." });
    expect((await readdir(folder)).length).toBeLessThan(400);
  });

  it('counts a stateless call\'s scratch folder against the quota too', async () => {
    const quota = new DiskQuota(path.join(folder, 'account'), mebibyte);
    const command = 'for i in $(seq 1 400); do head -c 65536 /dev/urandom > part-$i; sleep 0.05; done; echo finished';
    const result = await runBash({ command, limits, bubblewrap: requireBubblewrap(), diskQuota: quota });
    expect(kinds(result)).toEqual(['disk-quota']);
  });

  it('lets an account already past its quota run bash to delete files', async () => {
    await writeFile(path.join(folder, 'big'), Buffer.alloc(2 * mebibyte, 1));
    await symlink('/usr/bin', path.join(folder, 'link'));
    const result = await runBash({ command: 'sleep 1; rm big; echo removed', workingFolder: folder, limits, bubblewrap: requireBubblewrap(), diskQuota: new DiskQuota(folder, mebibyte) });
    expect(result).toMatchObject({ exitCode: 0, stdout: 'removed\n', limitsHit: [] });
  });
});
