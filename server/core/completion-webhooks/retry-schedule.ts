import type { WebhookSettings } from './webhook-settings.js';

/** How one attempt ended, as far as retrying goes. */
export type AttemptResult = { statusCode: number } | { error: string; retryable: boolean };

/**
 * Whether a failed attempt is worth repeating: network errors and timeouts, 5xx and 429 are
 * (the receiver may recover); other 4xx are not (the same request will be refused again), and
 * neither are 3xx (redirects are not followed, so a moved receiver must be reconfigured).
 */
export function isRetryable(result: AttemptResult): boolean {
  if ('error' in result) return result.retryable;
  return result.statusCode >= 500 || result.statusCode === 429;
}

export function isDelivered(result: AttemptResult): boolean {
  return 'statusCode' in result && result.statusCode >= 200 && result.statusCode < 300;
}

/**
 * The wait before attempt `attempt + 1`, after attempt `attempt` (1-based) failed: `retryBaseMs`
 * times 4 to the power `attempt - 1`, capped at `retryMaxMs`, then spread by ±20% (`random`
 * in [0, 1)) so receivers that failed together are not all retried at the same instant. With
 * the defaults: about 1 s, 4 s, 16 s, 64 s, 4 min, 17 min and 30 min, the 8th attempt about
 * 53 minutes after the first.
 */
export function retryDelayMs(attempt: number, settings: Pick<WebhookSettings, 'retryBaseMs' | 'retryMaxMs'>, random: () => number = Math.random): number {
  const planned = Math.min(settings.retryMaxMs, settings.retryBaseMs * 4 ** Math.max(0, attempt - 1));
  return Math.max(1, Math.round(planned * (0.8 + 0.4 * random())));
}

/** What follows a failed attempt: another one after `delayMs`, or the end of the delivery. */
export function nextStep(attempt: number, result: AttemptResult, settings: WebhookSettings, random?: () => number): { retryInMs: number } | 'give-up' {
  if (!isRetryable(result) || attempt >= settings.maxAttempts) return 'give-up';
  return { retryInMs: retryDelayMs(attempt, settings, random) };
}
