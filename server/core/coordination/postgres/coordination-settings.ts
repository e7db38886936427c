import { integerSettingGroup } from '../../integer-setting.js';

/** Timings of the coordination between replicas on PostgreSQL. */
export interface CoordinationSettings {
  /** `HARNESS_LEASE_MS`: how long a claimed job or a held conversation lock stays a replica's without a heartbeat (default 30 s); work of a dead replica is taken over after it. */
  leaseMs: number;
  /** `HARNESS_JOB_POLL_MS`: how often an idle replica looks for jobs queued by others (default 500 ms). */
  jobPollMs: number;
  /** `HARNESS_CRON_RESYNC_MS`: how often the cron scheduler re-reads jobs and unfinished runs (default 5 s). */
  cronResyncMs: number;
  /** `HARNESS_CANCEL_POLL_MS`: how often a replica that runs turns renews their rows and reads cancel requests a lost notification did not bring (default 1 s). */
  cancelPollMs?: number;
}

/** Each setting's variable, default and range, written once: the defaults and the reader come from it. */
const coordinationSettingTable = integerSettingGroup({
  // A heartbeat every third of the lease: a lease survives two missed beats.
  leaseMs: ['HARNESS_LEASE_MS', 30_000, 1_000, 3_600_000],
  jobPollMs: ['HARNESS_JOB_POLL_MS', 500, 10, 3_600_000],
  cronResyncMs: ['HARNESS_CRON_RESYNC_MS', 5_000, 100, 3_600_000],
  cancelPollMs: ['HARNESS_CANCEL_POLL_MS', 1_000, 50, 3_600_000],
});

export const defaultCoordinationSettings: Required<CoordinationSettings> = coordinationSettingTable.defaults;

export function coordinationSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): CoordinationSettings {
  return coordinationSettingTable.settings(environment);
}
