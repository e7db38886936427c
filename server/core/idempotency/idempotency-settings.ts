import { integerSetting } from '../integer-setting.js';

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

export const defaultIdempotencySettings: IdempotencySettings = {
  ttlSeconds: 86_400,
  claimSeconds: 900,
  waitMs: 10_000,
  sweepSeconds: 3_600,
};

/** Reads the `HARNESS_IDEMPOTENCY_*` variables over the defaults; a bad value is a start error naming the variable. */
export function idempotencySettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): IdempotencySettings {
  return {
    ttlSeconds: integerSetting(environment, 'HARNESS_IDEMPOTENCY_TTL_SECONDS', defaultIdempotencySettings.ttlSeconds, 1, 30 * 86_400),
    claimSeconds: integerSetting(environment, 'HARNESS_IDEMPOTENCY_CLAIM_SECONDS', defaultIdempotencySettings.claimSeconds, 1, 86_400),
    waitMs: integerSetting(environment, 'HARNESS_IDEMPOTENCY_WAIT_MS', defaultIdempotencySettings.waitMs, 0, 600_000),
    sweepSeconds: integerSetting(environment, 'HARNESS_IDEMPOTENCY_SWEEP_SECONDS', defaultIdempotencySettings.sweepSeconds, 1, 86_400),
  };
}
