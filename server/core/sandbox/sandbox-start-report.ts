import type { BubblewrapStatus } from './bubblewrap-probe.js';
import type { CgroupSupport } from './sandbox-cgroups.js';
import { formatBytes, type SandboxSettings } from './sandbox-settings.js';

/** The one line the service logs at start about bash: what confines it, or why it is off. */
export interface SandboxStartReport {
  level: 'info' | 'warn';
  message: string;
  fields: Record<string, unknown>;
}

/** Describe, for the operator, how bash calls will run with what was probed at start. */
export function sandboxStartReport(bubblewrap: BubblewrapStatus, cgroups: CgroupSupport, settings: SandboxSettings): SandboxStartReport {
  const { resources } = settings;
  const fields = { event: 'sandbox', bubblewrap: bubblewrap.available ? bubblewrap.version : 'unavailable', cgroups: cgroups.available ? `v${cgroups.version}` : 'unavailable', passEnvironment: settings.passEnvironment };
  if (!bubblewrap.available && !settings.allowUnsandboxedBash) {
    return {
      level: 'warn',
      fields: { ...fields, reason: bubblewrap.reason },
      message: `bash is DISABLED: ${bubblewrap.reason}. Install bubblewrap (apt-get install bubblewrap) and restart; HARNESS_UNSAFE_ALLOW_UNSANDBOXED_BASH=true runs bash without a sandbox instead (unsafe: bash then sees the service's files and network).`,
    };
  }
  const scope = cgroups.available ? `per call (cgroup v${cgroups.version})` : 'per process (no cgroup: RLIMIT_DATA, and RLIMIT_NPROC, which does not bind a service running as root)';
  const limits = `memory ${formatBytes(resources.memoryBytes)} and ${resources.maxProcesses} processes ${scope}, files up to ${formatBytes(resources.fileSizeBytes)}, /tmp ${formatBytes(resources.tmpBytes)}, disk quota ${formatBytes(settings.diskQuotaBytes)} per account`;
  if (!bubblewrap.available) {
    return {
      level: 'warn',
      fields: { ...fields, reason: bubblewrap.reason },
      message: `bash runs WITHOUT a sandbox (HARNESS_UNSAFE_ALLOW_UNSANDBOXED_BASH is set): ${bubblewrap.reason}. It can read the service's files and use the network; limits: ${limits}.`,
    };
  }
  const unboundProcesses = !cgroups.available && typeof process.getuid === 'function' && process.getuid() === 0;
  return {
    level: unboundProcesses ? 'warn' : 'info',
    fields: cgroups.available ? fields : { ...fields, cgroupReason: cgroups.reason },
    message: `bash runs inside bubblewrap ${bubblewrap.version}; limits: ${limits}.${unboundProcesses ? ` The process limit is NOT enforced: the service runs as root and ${cgroups.reason}.` : ''}`,
  };
}
