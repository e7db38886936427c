import { integerSettingGroup } from '../integer-setting.js';

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

/** Each setting's variable, default and range, written once: the defaults and the reader come from it. */
const webhookSettingTable = integerSettingGroup({
  timeoutMs: ['HARNESS_WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000],
  maxAttempts: ['HARNESS_WEBHOOK_MAX_ATTEMPTS', 8, 1, 20],
  retryBaseMs: ['HARNESS_WEBHOOK_RETRY_BASE_MS', 1_000, 1, 3_600_000],
  retryMaxMs: ['HARNESS_WEBHOOK_RETRY_MAX_MS', 1_800_000, 1, 86_400_000],
  sweepMs: ['HARNESS_WEBHOOK_SWEEP_MS', 60_000, 100, 3_600_000],
  concurrency: ['HARNESS_WEBHOOK_CONCURRENCY', 8, 1, 1_000],
  concurrencyPerAccount: ['HARNESS_WEBHOOK_CONCURRENCY_PER_ACCOUNT', 2, 1, 1_000],
  queuePerAccount: ['HARNESS_WEBHOOK_QUEUE_PER_ACCOUNT', 100, 2, 100_000],
  destinationBackoffMs: ['HARNESS_WEBHOOK_DESTINATION_BACKOFF_MS', 1_000, 1, 3_600_000],
  destinationBackoffMaxMs: ['HARNESS_WEBHOOK_DESTINATION_BACKOFF_MAX_MS', 60_000, 1, 86_400_000],
});

export const defaultWebhookSettings: WebhookSettings = webhookSettingTable.defaults;

/** Reads the variables over the defaults; a bad value is a start error naming the variable. */
export function webhookSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): WebhookSettings {
  return webhookSettingTable.settings(environment);
}
