import { describe, expect, it } from 'vitest';
import { isDelivered, isRetryable, nextStep, retryDelayMs } from './retry-schedule.js';
import { defaultWebhookSettings } from './webhook-settings.js';

describe('completion webhook retries', () => {
  it('waits 1 s, 4 s, 16 s ... capped at 30 min, without jitter at the midpoint', () => {
    const midpoint = () => 0.5;
    const waits = [1, 2, 3, 4, 5, 6, 7].map((attempt) => retryDelayMs(attempt, defaultWebhookSettings, midpoint));
    expect(waits).toEqual([1_000, 4_000, 16_000, 64_000, 256_000, 1_024_000, 1_800_000]);
    // Eight attempts span about 53 minutes.
    expect(waits.reduce((sum, wait) => sum + wait, 0)).toBe(3_165_000);
  });

  it('spreads each wait by at most 20% either way', () => {
    expect(retryDelayMs(2, defaultWebhookSettings, () => 0)).toBe(3_200);
    expect(retryDelayMs(2, defaultWebhookSettings, () => 0.999_999)).toBe(4_800);
  });

  it('retries network errors, timeouts, 5xx and 429; not other 4xx, 3xx or a refused destination', () => {
    expect(isRetryable({ statusCode: 500 })).toBe(true);
    expect(isRetryable({ statusCode: 503 })).toBe(true);
    expect(isRetryable({ statusCode: 429 })).toBe(true);
    expect(isRetryable({ error: 'connect ECONNREFUSED', retryable: true })).toBe(true);
    expect(isRetryable({ statusCode: 400 })).toBe(false);
    expect(isRetryable({ statusCode: 404 })).toBe(false);
    expect(isRetryable({ statusCode: 301 })).toBe(false);
    expect(isRetryable({ error: 'outbound call refused', retryable: false })).toBe(false);
    expect(isDelivered({ statusCode: 204 })).toBe(true);
    expect(isDelivered({ statusCode: 301 })).toBe(false);
  });

  it('gives up after the last attempt or a final answer', () => {
    const settings = { ...defaultWebhookSettings, maxAttempts: 3 };
    expect(nextStep(1, { statusCode: 500 }, settings, () => 0.5)).toEqual({ retryInMs: 1_000 });
    expect(nextStep(2, { statusCode: 500 }, settings, () => 0.5)).toEqual({ retryInMs: 4_000 });
    expect(nextStep(3, { statusCode: 500 }, settings)).toBe('give-up');
    expect(nextStep(1, { statusCode: 410 }, settings)).toBe('give-up');
  });
});
