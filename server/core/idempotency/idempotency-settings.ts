import { integerSettingGroup } from '../integer-setting.js';

/** How `Idempotency-Key` answers are kept (the operator's `HARNESS_IDEMPOTENCY_*` settings). */
export interface IdempotencySettings {
  /** `HARNESS_IDEMPOTENCY_TTL_SECONDS` (default 86400): how long a key and its answer are kept; after it the key is new again. */
  ttlSeconds: number;
  /**
   * `HARNESS_IDEMPOTENCY_CLAIM_SECONDS` (default 900): how long the first request holds its key
   * before it has an answer. A replica that died holding a key frees it after this; a retry then
   * runs the request again.
   */
  claimSeconds: number;
  /** `HARNESS_IDEMPOTENCY_WAIT_MS` (default 10000): how long a retry waits for the first request's answer before a 409 `idempotency_key_in_use`. */
  waitMs: number;
  /** `HARNESS_IDEMPOTENCY_SWEEP_SECONDS` (default 3600): how often expired keys are deleted (a key met after its time is treated as absent anyway). */
  sweepSeconds: number;
}

/** Each setting's variable, default and range, written once: the defaults and the reader come from it. */
const idempotencySettingTable = integerSettingGroup({
  ttlSeconds: ['HARNESS_IDEMPOTENCY_TTL_SECONDS', 86_400, 1, 30 * 86_400],
  claimSeconds: ['HARNESS_IDEMPOTENCY_CLAIM_SECONDS', 900, 1, 86_400],
  waitMs: ['HARNESS_IDEMPOTENCY_WAIT_MS', 10_000, 0, 600_000],
  sweepSeconds: ['HARNESS_IDEMPOTENCY_SWEEP_SECONDS', 3_600, 1, 86_400],
});

export const defaultIdempotencySettings: IdempotencySettings = idempotencySettingTable.defaults;

/** Reads the variables over the defaults; a bad value is a start error naming the variable. */
export function idempotencySettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): IdempotencySettings {
  return idempotencySettingTable.settings(environment);
}
