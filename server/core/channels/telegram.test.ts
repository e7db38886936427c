import { describe, expect, it } from 'vitest';
import type { InboundWebhook } from './channel-adapter.js';
import { telegramAdapter, type TelegramConfig } from './telegram.js';

const config: TelegramConfig = { botToken: '123456:ABC-bot-token', secretToken: 'telegram-secret_1' };

function webhook(body: unknown, headers: Record<string, string> = { 'x-telegram-bot-api-secret-token': config.secretToken }): InboundWebhook {
  return { headers, rawBody: Buffer.from(JSON.stringify(body)), query: {}, now: new Date() };
}

const textUpdate = {
  update_id: 900001,
  message: {
    message_id: 7,
    from: { id: 42, is_bot: false, first_name: 'Ada', username: 'ada' },
    chat: { id: -100123, type: 'supergroup' },
    date: 1700000000,
    text: 'What is the weather?',
  },
};

describe('telegram adapter', () => {
  it('accepts the configured secret token header', () => {
    expect(telegramAdapter.verify(webhook(textUpdate), config)).toEqual({ ok: true });
  });

  it('rejects a wrong or missing secret token header', () => {
    expect(telegramAdapter.verify(webhook(textUpdate, { 'x-telegram-bot-api-secret-token': 'nope' }), config).ok).toBe(false);
    const missing = telegramAdapter.verify(webhook(textUpdate, {}), config);
    expect(missing).toEqual({ ok: false, reason: expect.stringContaining('missing') });
  });

  it('parses a text message; update_id is the delivery id and the chat the conversation', () => {
    expect(telegramAdapter.parse(webhook(textUpdate), config)).toEqual({
      kind: 'message',
      deliveryId: '900001',
      conversationId: '-100123',
      text: 'What is the weather?',
      sender: '42',
      replyTarget: { chatId: -100123 },
    });
  });

  it('keeps forum topics apart and replies into the topic', () => {
    const update = { ...textUpdate, message: { ...textUpdate.message, message_thread_id: 5, is_topic_message: true } };
    const event = telegramAdapter.parse(webhook(update), config);
    expect(event).toMatchObject({ kind: 'message', conversationId: '-100123:5', replyTarget: { chatId: -100123, messageThreadId: 5 } });
    const [request] = telegramAdapter.buildReplyRequests(config, { chatId: -100123, messageThreadId: 5 }, 'hi');
    expect(request?.body).toEqual({ chat_id: -100123, text: 'hi', message_thread_id: 5 });
  });

  it('ignores messages from bots, updates without text and other update kinds', () => {
    const fromBot = { ...textUpdate, message: { ...textUpdate.message, from: { id: 9, is_bot: true, first_name: 'Bot' } } };
    expect(telegramAdapter.parse(webhook(fromBot), config).kind).toBe('ignored');
    const sticker = { update_id: 2, message: { message_id: 8, chat: { id: 1 }, from: { id: 42, is_bot: false }, sticker: {} } };
    expect(telegramAdapter.parse(webhook(sticker), config).kind).toBe('ignored');
    const edited = { update_id: 3, edited_message: textUpdate.message };
    expect(telegramAdapter.parse(webhook(edited), config).kind).toBe('ignored');
    expect(telegramAdapter.parse({ ...webhook({}), rawBody: Buffer.from('not json') }, config).kind).toBe('ignored');
  });

  it('posts to sendMessage with the token in the path, splitting at 4096 characters', () => {
    const text = `${'a'.repeat(3000)}\n${'b'.repeat(3000)} ${'c'.repeat(3000)}`;
    const requests = telegramAdapter.buildReplyRequests({ ...config, apiBaseUrl: 'http://127.0.0.1:9/telegram/' }, { chatId: 42 }, text);
    expect(requests.length).toBeGreaterThan(1);
    for (const request of requests) {
      expect(request.url).toBe('http://127.0.0.1:9/telegram/bot123456:ABC-bot-token/sendMessage');
      expect((request.body.text as string).length).toBeLessThanOrEqual(4096);
      expect(request.body.chat_id).toBe(42);
      expect(JSON.stringify(request.headers)).not.toContain(config.botToken);
    }
    expect(requests.map((request) => request.body.text).join('')).toBe(text);
    expect(telegramAdapter.buildReplyRequests(config, { chatId: 1 }, 'x')[0]?.url).toBe(
      'https://api.telegram.org/bot123456:ABC-bot-token/sendMessage',
    );
  });
});
