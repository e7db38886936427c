import { describe, expect, it } from 'vitest';
import { defaultSandboxSettings, formatBytes, sandboxSettingsFromEnvironment } from './sandbox-settings.js';

describe('sandboxSettingsFromEnvironment', () => {
  it('defaults: nothing passed through, no bash without bubblewrap, 512 MiB, 256 processes, 256 MiB files, 64 MiB /tmp, 1 GiB quota', () => {
    expect(sandboxSettingsFromEnvironment({})).toEqual(defaultSandboxSettings);
    expect(defaultSandboxSettings).toEqual({
      passEnvironment: [],
      allowUnsandboxedBash: false,
      resources: { memoryBytes: 512 * 1024 ** 2, maxProcesses: 256, fileSizeBytes: 256 * 1024 ** 2, tmpBytes: 64 * 1024 ** 2 },
      diskQuotaBytes: 1024 ** 3,
    });
  });

  it('reads every variable', () => {
    expect(
      sandboxSettingsFromEnvironment({
        HARNESS_SANDBOX_PASS_ENV: 'GIT_AUTHOR_NAME, LANGUAGE',
        HARNESS_UNSAFE_ALLOW_UNSANDBOXED_BASH: 'true',
        HARNESS_SANDBOX_MEMORY_BYTES: String(128 * 1024 ** 2),
        HARNESS_SANDBOX_MAX_PROCESSES: '64',
        HARNESS_SANDBOX_FILE_SIZE_BYTES: '1048576',
        HARNESS_SANDBOX_TMP_BYTES: '2097152',
        HARNESS_SANDBOX_DISK_QUOTA_BYTES: '5000',
      }),
    ).toEqual({
      passEnvironment: ['GIT_AUTHOR_NAME', 'LANGUAGE'],
      allowUnsandboxedBash: true,
      resources: { memoryBytes: 128 * 1024 ** 2, maxProcesses: 64, fileSizeBytes: 1048576, tmpBytes: 2097152 },
      diskQuotaBytes: 5000,
    });
  });

  it.each([
    [{ HARNESS_SANDBOX_PASS_ENV: 'HARNESS_ADMIN_SECRET' }, 'HARNESS_SANDBOX_PASS_ENV must not list HARNESS_ADMIN_SECRET'],
    [{ HARNESS_SANDBOX_PASS_ENV: 'nats_token' }, 'HARNESS_SANDBOX_PASS_ENV must not list nats_token'],
    [{ HARNESS_SANDBOX_PASS_ENV: 'A-B' }, 'HARNESS_SANDBOX_PASS_ENV must list variable names'],
    [{ HARNESS_UNSAFE_ALLOW_UNSANDBOXED_BASH: 'maybe' }, 'HARNESS_UNSAFE_ALLOW_UNSANDBOXED_BASH must be true or false'],
    [{ HARNESS_SANDBOX_MAX_PROCESSES: '2' }, 'HARNESS_SANDBOX_MAX_PROCESSES must be an integer of at least 8'],
    [{ HARNESS_SANDBOX_MEMORY_BYTES: '1GB' }, 'HARNESS_SANDBOX_MEMORY_BYTES must be an integer'],
  ])('refuses %o at start, naming the variable', (environment, message) => {
    expect(() => sandboxSettingsFromEnvironment(environment)).toThrow(message);
  });
});

describe('formatBytes', () => {
  it('writes whole units plainly', () => {
    expect([formatBytes(512 * 1024 ** 2), formatBytes(1024 ** 3), formatBytes(1500), formatBytes(3 * 1024)]).toEqual(['512 MiB', '1 GiB', '1500 bytes', '3 KiB']);
  });
});
