/**
 * The operator's settings for bash calls: which service variables accounts may pass
 * through, whether bash may run without bubblewrap, the resource limits of every call and
 * each account's disk quota. Read once at start from `HARNESS_SANDBOX_*` variables; a bad
 * value is a start error naming the variable. Accounts cannot raise any of them.
 */
export interface SandboxResourceLimits {
  /** Memory of one call: all its processes together under a cgroup, each process's data otherwise. */
  memoryBytes: number;
  /** Processes (threads included under a cgroup) one call may have at once. */
  maxProcesses: number;
  /** Largest file one process may write (RLIMIT_FSIZE). */
  fileSizeBytes: number;
  /** Size of the call's private /tmp (a tmpfs, so it is RAM: it counts against the host). */
  tmpBytes: number;
}

export interface SandboxSettings {
  /** Service variables an agent's `config.sandbox.environment` may name; empty by default. */
  passEnvironment: readonly string[];
  /** Run bash without bubblewrap when it is missing; unsafe, off by default. */
  allowUnsandboxedBash: boolean;
  resources: SandboxResourceLimits;
  /** Bytes of files one account may keep in its bucket folder, workspaces together. */
  diskQuotaBytes: number;
}

const mebibyte = 1024 * 1024;

export const defaultSandboxSettings: SandboxSettings = {
  passEnvironment: [],
  allowUnsandboxedBash: false,
  resources: { memoryBytes: 512 * mebibyte, maxProcesses: 256, fileSizeBytes: 256 * mebibyte, tmpBytes: 64 * mebibyte },
  diskQuotaBytes: 1024 * mebibyte,
};

/** Variables that are never passed to bash: the service's own secrets and settings live there. */
export function isServiceVariable(name: string): boolean {
  return /^(HARNESS|NATS)_/i.test(name);
}

const variableName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

function positiveInteger(variable: string, value: string | undefined, fallback: number, minimum = 1): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < minimum) throw new Error(`${variable} must be an integer of at least ${minimum} (got ${JSON.stringify(value)}).`);
  return parsed;
}

function booleanSwitch(variable: string, value: string | undefined): boolean {
  if (value === undefined || value === '') return false;
  const lower = value.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lower)) return true;
  if (['false', '0', 'no', 'off'].includes(lower)) return false;
  throw new Error(`${variable} must be true or false (got ${JSON.stringify(value)}).`);
}

function passList(value: string | undefined): string[] {
  const names = (value ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  for (const name of names) {
    if (!variableName.test(name)) throw new Error(`HARNESS_SANDBOX_PASS_ENV must list variable names separated by commas (got ${JSON.stringify(name)}).`);
    if (isServiceVariable(name)) throw new Error(`HARNESS_SANDBOX_PASS_ENV must not list ${name}: HARNESS_* and NATS_* variables are never passed to bash.`);
  }
  return names;
}

/** The settings from the environment over the defaults. */
export function sandboxSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): SandboxSettings {
  const defaults = defaultSandboxSettings.resources;
  return {
    passEnvironment: passList(environment.HARNESS_SANDBOX_PASS_ENV),
    allowUnsandboxedBash: booleanSwitch('HARNESS_UNSAFE_ALLOW_UNSANDBOXED_BASH', environment.HARNESS_UNSAFE_ALLOW_UNSANDBOXED_BASH),
    resources: {
      memoryBytes: positiveInteger('HARNESS_SANDBOX_MEMORY_BYTES', environment.HARNESS_SANDBOX_MEMORY_BYTES, defaults.memoryBytes, 16 * mebibyte),
      maxProcesses: positiveInteger('HARNESS_SANDBOX_MAX_PROCESSES', environment.HARNESS_SANDBOX_MAX_PROCESSES, defaults.maxProcesses, 8),
      fileSizeBytes: positiveInteger('HARNESS_SANDBOX_FILE_SIZE_BYTES', environment.HARNESS_SANDBOX_FILE_SIZE_BYTES, defaults.fileSizeBytes, 1024),
      tmpBytes: positiveInteger('HARNESS_SANDBOX_TMP_BYTES', environment.HARNESS_SANDBOX_TMP_BYTES, defaults.tmpBytes, mebibyte),
    },
    diskQuotaBytes: positiveInteger('HARNESS_SANDBOX_DISK_QUOTA_BYTES', environment.HARNESS_SANDBOX_DISK_QUOTA_BYTES, defaultSandboxSettings.diskQuotaBytes),
  };
}

/** Bytes as people read them: `512 MiB`, `1 GiB`, `1500 bytes`. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', mebibyte], ['KiB', 1024]] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
    if (bytes >= size * 10) return `${(bytes / size).toFixed(1)} ${unit}`;
  }
  return `${bytes} bytes`;
}
