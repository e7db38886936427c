import { integerSetting } from '../integer-setting.js';

/** How completion webhooks are sent and retried (the operator's `HARNESS_WEBHOOK_*` settings). */
export interface WebhookSettings {
  /** `HARNESS_WEBHOOK_TIMEOUT_MS` (default 10000): one attempt's bound, connection to last byte of the answer's headers. */
  timeoutMs: number;
  /** `HARNESS_WEBHOOK_MAX_ATTEMPTS` (default 8): attempts of one delivery, the first included. */
  maxAttempts: number;
  /** `HARNESS_WEBHOOK_RETRY_BASE_MS` (default 1000): the wait after the first failed attempt; each later wait is 4 times the one before. */
  retryBaseMs: number;
  /** `HARNESS_WEBHOOK_RETRY_MAX_MS` (default 1800000): no single wait is longer than this. */
  retryMaxMs: number;
  /**
   * `HARNESS_WEBHOOK_SWEEP_MS` (default 60000): on replicas, how often each one looks for
   * deliveries whose retry is due and that no live replica is waiting on (the replica that
   * scheduled the retry died).
   */
  sweepMs: number;
  /** `HARNESS_WEBHOOK_CONCURRENCY` (default 8): attempts under way at once in this process, every account together. */
  concurrency: number;
  /**
   * `HARNESS_WEBHOOK_CONCURRENCY_PER_ACCOUNT` (default 2): attempts of one account under way at
   * once in this process. Free slots go to the accounts in turn, so an account whose receiver
   * never answers holds at most this many.
   */
  concurrencyPerAccount: number;
  /**
   * `HARNESS_WEBHOOK_QUEUE_PER_ACCOUNT` (default 100): deliveries of one account this process
   * holds in memory (waiting for a slot, for a retry, or under way). Beyond it they wait in
   * storage, still `pending`, and are read again when the account's queue is half empty.
   */
  queuePerAccount: number;
  /**
   * `HARNESS_WEBHOOK_DESTINATION_BACKOFF_MS` (default 1000): after an attempt to a receiver (a
   * URL origin) times out or fails, its other deliveries wait this long before one probes it;
   * each further failure doubles the wait.
   */
  destinationBackoffMs: number;
  /** `HARNESS_WEBHOOK_DESTINATION_BACKOFF_MAX_MS` (default 60000): the longest such wait. */
  destinationBackoffMaxMs: number;
}

export const defaultWebhookSettings: WebhookSettings = {
  timeoutMs: 10_000,
  maxAttempts: 8,
  retryBaseMs: 1_000,
  retryMaxMs: 1_800_000,
  sweepMs: 60_000,
  concurrency: 8,
  concurrencyPerAccount: 2,
  queuePerAccount: 100,
  destinationBackoffMs: 1_000,
  destinationBackoffMaxMs: 60_000,
};

/** Reads the `HARNESS_WEBHOOK_*` variables over the defaults; a bad value is a start error naming the variable. */
export function webhookSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): WebhookSettings {
  return {
    timeoutMs: integerSetting(environment, 'HARNESS_WEBHOOK_TIMEOUT_MS', defaultWebhookSettings.timeoutMs, 100, 120_000),
    maxAttempts: integerSetting(environment, 'HARNESS_WEBHOOK_MAX_ATTEMPTS', defaultWebhookSettings.maxAttempts, 1, 20),
    retryBaseMs: integerSetting(environment, 'HARNESS_WEBHOOK_RETRY_BASE_MS', defaultWebhookSettings.retryBaseMs, 1, 3_600_000),
    retryMaxMs: integerSetting(environment, 'HARNESS_WEBHOOK_RETRY_MAX_MS', defaultWebhookSettings.retryMaxMs, 1, 86_400_000),
    sweepMs: integerSetting(environment, 'HARNESS_WEBHOOK_SWEEP_MS', defaultWebhookSettings.sweepMs, 100, 3_600_000),
    concurrency: integerSetting(environment, 'HARNESS_WEBHOOK_CONCURRENCY', defaultWebhookSettings.concurrency, 1, 1_000),
    concurrencyPerAccount: integerSetting(environment, 'HARNESS_WEBHOOK_CONCURRENCY_PER_ACCOUNT', defaultWebhookSettings.concurrencyPerAccount, 1, 1_000),
    queuePerAccount: integerSetting(environment, 'HARNESS_WEBHOOK_QUEUE_PER_ACCOUNT', defaultWebhookSettings.queuePerAccount, 2, 100_000),
    destinationBackoffMs: integerSetting(environment, 'HARNESS_WEBHOOK_DESTINATION_BACKOFF_MS', defaultWebhookSettings.destinationBackoffMs, 1, 3_600_000),
    destinationBackoffMaxMs: integerSetting(environment, 'HARNESS_WEBHOOK_DESTINATION_BACKOFF_MAX_MS', defaultWebhookSettings.destinationBackoffMaxMs, 1, 86_400_000),
  };
}
