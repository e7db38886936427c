import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../channels/constant-time-equal.js';

/**
 * The `X-Harness-Signature` value: `v1=` and the hex HMAC-SHA256, keyed by the webhook's
 * secret, of `<timestamp>.<body>` (timestamp in Unix seconds, body the exact bytes sent).
 * Signing the timestamp with the body lets a receiver refuse an old request replayed.
 */
export function signWebhook(secret: string, timestampSeconds: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex')}`;
}

/**
 * What a receiver does (and what the tests do): recompute the signature, compare in constant
 * time, and refuse a timestamp further than `toleranceSeconds` from its clock (default 5 minutes).
 */
export function verifyWebhookSignature(options: { secret: string; timestamp: string; signature: string; body: string; nowSeconds?: number; toleranceSeconds?: number }): boolean {
  if (!/^\d{1,12}$/.test(options.timestamp)) return false;
  const timestamp = Number(options.timestamp);
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  return constantTimeEqual(signWebhook(options.secret, timestamp, options.body), options.signature);
}
