/**
 * Small helpers the provider adapters share: JSON bodies, shared tokens, timestamp windows
 * and base URLs. Pure functions, no I/O.
 */
import type { VerificationResult } from './channel-adapter.js';
import { constantTimeEqual } from './constant-time-equal.js';

/** Parses the raw body as JSON; `undefined` when it is not JSON. */
export function parseJsonBody(rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * How long a finished delivery is remembered (its id is the dedupe key). A provider's retry
 * comes within minutes; GitHub lets an owner redeliver for three days. A signed payload older
 * than this can no longer be told from a new one by its id, so adapters that can see the
 * signed creation time refuse older ones (see github.ts).
 */
export const deliveryMemoryMs = 7 * 24 * 3600_000;

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

/**
 * Verification by a shared token the provider sends back as it was configured (Telegram's and
 * Zalo's secret-token headers, Pancake's URL token), compared in constant time. `label` names
 * where it travels, e.g. "x-telegram-bot-api-secret-token header".
 */
export function verifySharedToken(received: string | undefined, expected: string, label: string): VerificationResult {
  if (received === undefined) return { ok: false, reason: `missing ${label}` };
  if (!constantTimeEqual(received, expected)) return { ok: false, reason: `${label} does not match` };
  return { ok: true };
}
