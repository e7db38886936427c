import { describe, expect, it } from 'vitest';
import type { InboundWebhook } from './channel-adapter.js';
import { zaloAdapter, type ZaloConfig } from './zalo.js';

const config: ZaloConfig = { secretToken: 'zalo-secret-token', accessToken: '12345689:zalo-bot-token' };

function webhook(body: unknown, headers: Record<string, string> = { 'x-bot-api-secret-token': config.secretToken }): InboundWebhook {
  return { headers, rawBody: Buffer.from(JSON.stringify(body)), query: {}, now: new Date() };
}

const update = {
  event_name: 'message.text.received',
  message: {
    message_id: '2d758cb5e222177a4e35',
    date: 1750316131602,
    text: 'Xin chào',
    from: { id: '6ede9afa66b88fe6d6a9', display_name: 'Ted', is_bot: false },
    chat: { id: '6ede9afa66b88fe6d6a9', chat_type: 'PRIVATE' },
  },
};

describe('zalo adapter', () => {
  it('accepts the secret token header', () => {
    expect(zaloAdapter.verify(webhook({ ok: true, result: update }), config)).toEqual({ ok: true });
  });

  it('rejects a wrong or missing secret token header', () => {
    expect(zaloAdapter.verify(webhook(update, { 'x-bot-api-secret-token': 'wrong' }), config).ok).toBe(false);
    expect(zaloAdapter.verify(webhook(update, {}), config)).toEqual({ ok: false, reason: expect.stringContaining('missing') });
  });

  it('parses a text message, wrapped in {ok, result} or bare', () => {
    const expected = {
      kind: 'message',
      deliveryId: '2d758cb5e222177a4e35',
      conversationId: '6ede9afa66b88fe6d6a9',
      text: 'Xin chào',
      sender: '6ede9afa66b88fe6d6a9',
      replyTarget: { chatId: '6ede9afa66b88fe6d6a9' },
    };
    expect(zaloAdapter.parse(webhook({ ok: true, result: update }), config)).toEqual(expected);
    expect(zaloAdapter.parse(webhook(update), config)).toEqual(expected);
  });

  it('ignores bots, stickers and images', () => {
    expect(zaloAdapter.parse(webhook({ ...update, message: { ...update.message, from: { id: 'b', is_bot: true } } }), config).kind).toBe('ignored');
    const sticker = { event_name: 'message.sticker.received', message: { ...update.message, text: undefined, sticker: 'x' } };
    expect(zaloAdapter.parse(webhook({ ok: true, result: sticker }), config).kind).toBe('ignored');
    expect(zaloAdapter.parse(webhook({ ok: true, result: { event_name: 'message.image.received' } }), config).kind).toBe('ignored');
  });

  it('sends through the Bot API with the token in the path, splitting at 2000 characters', () => {
    const text = `${'Một hai ba. '.repeat(300)}`;
    const requests = zaloAdapter.buildReplyRequests(config, { chatId: '6ede9afa66b88fe6d6a9' }, text);
    expect(requests.length).toBe(2);
    for (const request of requests) {
      expect(request.url).toBe('https://bot-api.zaloplatforms.com/bot12345689:zalo-bot-token/sendMessage');
      expect(request.body.chat_id).toBe('6ede9afa66b88fe6d6a9');
      expect((request.body.text as string).length).toBeLessThanOrEqual(2000);
    }
    expect(requests.map((request) => request.body.text).join('')).toBe(text);
  });
});
