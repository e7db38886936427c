import { describe, expect, it } from 'vitest';
import { startWebhookReceiver } from '../../../test/support/webhook-receiver.js';
import { OutboundPolicy } from '../outbound/outbound-policy.js';
import { postWebhook, type WebhookPost } from './webhook-sender.js';
import { signWebhook } from './webhook-signature.js';

describe('postWebhook', () => {
  const post = (url: string, fetch: typeof globalThis.fetch): WebhookPost => ({
    url,
    secret: 'sender-test-secret-0123456789',
    body: '{"eventId":"evt_1","status":"completed"}',
    deliveryId: 'whd_1',
    eventId: 'evt_1',
    timestampSeconds: 1_700_000_000,
    timeoutMs: 5_000,
    fetch,
  });

  it('sends the signed body with the delivery and event ids, and answers the status code', async () => {
    const receiver = await startWebhookReceiver();
    try {
      receiver.answerWith(202);
      expect(await postWebhook(post(receiver.url, fetch))).toEqual({ statusCode: 202 });
      const [received] = receiver.received;
      expect(received!.body).toBe('{"eventId":"evt_1","status":"completed"}');
      expect(received!.headers).toMatchObject({
        'content-type': 'application/json',
        'x-harness-timestamp': '1700000000',
        'x-harness-signature': signWebhook('sender-test-secret-0123456789', 1_700_000_000, received!.body),
        'x-harness-delivery': 'whd_1',
        'x-harness-event': 'evt_1',
      });
      // A redirect is the answer, not followed.
      receiver.answerWith(307);
      expect(await postWebhook(post(receiver.url, fetch))).toEqual({ statusCode: 307 });
      expect(receiver.received).toHaveLength(2);
    } finally {
      await receiver.close();
    }
  });

  it('goes through the outbound policy when connecting: a name that resolves to a private address is refused, not retried', async () => {
    const receiver = await startWebhookReceiver();
    const policy = new OutboundPolicy({ mode: 'public', allow: [] }, async () => ['127.0.0.1']);
    try {
      const result = await postWebhook(post(receiver.url.replace('127.0.0.1', 'receiver.example'), policy.fetch));
      expect(result).toMatchObject({ retryable: false, error: expect.stringContaining('outbound call refused: receiver.example resolves to 127.0.0.1') });
      expect(receiver.received).toHaveLength(0);
    } finally {
      await Promise.all([receiver.close(), policy.close()]);
    }
  });
});
