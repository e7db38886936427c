import { describe, expect, it } from 'vitest';
import { defaultIdempotencySettings, idempotencySettingsFromEnvironment } from './idempotency-settings.js';

describe('idempotencySettingsFromEnvironment', () => {
  it('keeps keys 24 hours by default', () => {
    expect(idempotencySettingsFromEnvironment({})).toEqual(defaultIdempotencySettings);
    expect(defaultIdempotencySettings.ttlSeconds).toBe(86_400);
  });

  it('reads each HARNESS_IDEMPOTENCY_* variable and names a bad one', () => {
    expect(idempotencySettingsFromEnvironment({ HARNESS_IDEMPOTENCY_TTL_SECONDS: '60', HARNESS_IDEMPOTENCY_WAIT_MS: '0', HARNESS_IDEMPOTENCY_CLAIM_SECONDS: '30', HARNESS_IDEMPOTENCY_SWEEP_SECONDS: '5' })).toEqual({
      ttlSeconds: 60,
      waitMs: 0,
      claimSeconds: 30,
      sweepSeconds: 5,
    });
    expect(() => idempotencySettingsFromEnvironment({ HARNESS_IDEMPOTENCY_TTL_SECONDS: '0' })).toThrow(/HARNESS_IDEMPOTENCY_TTL_SECONDS/);
    expect(() => idempotencySettingsFromEnvironment({ HARNESS_IDEMPOTENCY_WAIT_MS: 'soon' })).toThrow(/HARNESS_IDEMPOTENCY_WAIT_MS/);
  });
});
