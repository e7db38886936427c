import { describe, expect, it } from 'vitest';
import { defaultSandboxSettings } from './sandbox-settings.js';
import { sandboxStartReport } from './sandbox-start-report.js';

const missing = { available: false as const, reason: 'bwrap was not found on PATH (Debian package: bubblewrap)' };
const present = { available: true as const, version: '0.8.0', executablePath: '/usr/bin/bwrap' };
const cgroups = { available: true as const, version: 2 as const, parents: { pids: '/sys/fs/cgroup/harness-sandbox', memory: '/sys/fs/cgroup/harness-sandbox' } };

describe('sandboxStartReport', () => {
  it('warns that bash is disabled without bubblewrap, and names the fix and the unsafe opt-in', () => {
    const report = sandboxStartReport(missing, cgroups, defaultSandboxSettings);
    expect(report.level).toBe('warn');
    expect(report.message).toBe(
      'bash is DISABLED: bwrap was not found on PATH (Debian package: bubblewrap). Install bubblewrap (apt-get install bubblewrap) and restart; HARNESS_UNSAFE_ALLOW_UNSANDBOXED_BASH=true runs bash without a sandbox instead (unsafe: bash then sees the service\'s files and network).',
    );
  });

  it('warns that bash runs unconfined when the operator opted in', () => {
    const report = sandboxStartReport(missing, cgroups, { ...defaultSandboxSettings, allowUnsandboxedBash: true });
    expect(report.level).toBe('warn');
    expect(report.message).toMatch(/^bash runs WITHOUT a sandbox \(HARNESS_UNSAFE_ALLOW_UNSANDBOXED_BASH is set\)/);
  });

  it('states the limits in force under bubblewrap', () => {
    const report = sandboxStartReport(present, cgroups, defaultSandboxSettings);
    expect(report).toMatchObject({ level: 'info', fields: { event: 'sandbox', bubblewrap: '0.8.0', cgroups: 'v2', passEnvironment: [] } });
    expect(report.message).toBe('bash runs inside bubblewrap 0.8.0; limits: memory 512 MiB and 256 processes per call (cgroup v2), files up to 256 MiB, /tmp 64 MiB, disk quota 1 GiB per account.');
  });
});
