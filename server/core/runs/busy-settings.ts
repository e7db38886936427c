import { integerSetting } from '../integer-setting.js';

/** The operator's bounds on busy conversations (`HARNESS_BUSY_*`). */
export interface BusySettings {
  /**
   * `HARNESS_BUSY_MAX_WAITING_PER_CONVERSATION` (default 20): messages of one conversation that
   * may wait for its running turn in one process (`queue`, `steer`, `interrupt`, a `collect`
   * turn's first message); past it a new one is refused, 429.
   */
  maxWaitingPerConversation: number;
}

export const defaultBusySettings: BusySettings = { maxWaitingPerConversation: 20 };

/** Reads the `HARNESS_BUSY_*` variables over the defaults; a bad value is a start error naming the variable. */
export function busySettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): BusySettings {
  return {
    maxWaitingPerConversation: integerSetting(environment, 'HARNESS_BUSY_MAX_WAITING_PER_CONVERSATION', defaultBusySettings.maxWaitingPerConversation, 1, 10_000),
  };
}
