import type { DiskQuota } from './disk-quota.js';
import type { CgroupSupport } from './sandbox-cgroups.js';
import type { SandboxSettings } from './sandbox-settings.js';

/** What the operator decided for bash calls, shared by every sandbox tool of a service. */
export interface SandboxRuntime {
  /** Variables let through, the unsafe opt-in, resource limits; default: the defaults. */
  settings?: SandboxSettings;
  /** Where per-call cgroups are made, as probed at start. */
  cgroups?: CgroupSupport;
  /** The account's disk quota over its bucket folder. */
  diskQuota?: DiskQuota;
}
