/**
 * Small helpers the provider adapters share: JSON bodies, timestamp windows and base
 * URLs. Pure functions, no I/O.
 */

/** Parses the raw body as JSON; `undefined` when it is not JSON. */
export function parseJsonBody(rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Replay protection for signed requests: Slack and Discord both allow five minutes. */
export const signatureWindowSeconds = 5 * 60;

/**
 * Checks a Unix-seconds timestamp header against `now`, in either direction (a clock
 * ahead of ours is as suspicious as a stale one). Returns a reason when it fails.
 */
export function checkTimestampWindow(timestamp: string, now: Date, windowSeconds = signatureWindowSeconds): string | undefined {
  if (!/^\d{1,12}$/.test(timestamp)) return 'timestamp header is not a Unix time in seconds';
  const skewSeconds = Math.abs(now.getTime() / 1000 - Number(timestamp));
  if (skewSeconds > windowSeconds) return `timestamp is more than ${windowSeconds} seconds away from now`;
  return undefined;
}

/** The configured base URL (for tests and proxies) or the provider's real one, without a trailing slash. */
export function resolveApiBaseUrl(configured: string | undefined, providerDefault: string): string {
  return (configured ?? providerDefault).replace(/\/+$/, '');
}
