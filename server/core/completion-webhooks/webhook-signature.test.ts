import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhookSignature } from './webhook-signature.js';

describe('completion webhook signature', () => {
  // Computed independently: printf '1700000000.{"eventId":"evt_1","status":"completed"}' | openssl dgst -sha256 -hmac 'whsec-test-0123456789'
  const vector = {
    secret: 'whsec-test-0123456789',
    timestamp: 1_700_000_000,
    body: '{"eventId":"evt_1","status":"completed"}',
    signature: 'v1=1a87f796ad159f22559fe33ddc713131be2dec5569ce8f693395b9d3f83b1087',
  };

  it('is v1= and the hex HMAC-SHA256 of "<timestamp>.<body>"', () => {
    expect(signWebhook(vector.secret, vector.timestamp, vector.body)).toBe(vector.signature);
  });

  it('verifies the right secret and body within the tolerance, and nothing else', () => {
    const valid = { secret: vector.secret, timestamp: String(vector.timestamp), signature: vector.signature, body: vector.body, nowSeconds: vector.timestamp + 60 };
    expect(verifyWebhookSignature(valid)).toBe(true);
    expect(verifyWebhookSignature({ ...valid, secret: 'another-secret-0123456789' })).toBe(false);
    expect(verifyWebhookSignature({ ...valid, body: valid.body.replace('completed', 'failed') })).toBe(false);
    expect(verifyWebhookSignature({ ...valid, timestamp: String(vector.timestamp + 1) })).toBe(false);
    expect(verifyWebhookSignature({ ...valid, nowSeconds: vector.timestamp + 301 })).toBe(false);
    expect(verifyWebhookSignature({ ...valid, timestamp: 'not-a-number' })).toBe(false);
  });
});
