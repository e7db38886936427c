import { describe, expect, it } from 'vitest';
import type { InboundWebhook } from './channel-adapter.js';
import { pancakeAdapter, type PancakeConfig } from './pancake.js';

const config: PancakeConfig = { pageId: '284497861420881', accessToken: 'pancake-page-access-token', verifyToken: 'pancake-shared-token' };

function webhook(body: unknown, query: Record<string, string> = { token: config.verifyToken }): InboundWebhook {
  return { headers: {}, rawBody: Buffer.from(JSON.stringify(body)), query, now: new Date() };
}

const customer = { id: '7073515559329750', name: 'Linh' };
const conversationId = '284497861420881_7073515559329750';
function messaging(message: Record<string, unknown>, conversationType = 'INBOX'): Record<string, unknown> {
  return {
    page_id: config.pageId,
    event_type: 'messaging',
    data: {
      conversation: { id: conversationId, type: conversationType, from: customer, snippet: 'Còn hàng không?' },
      message: { id: 'm_abc123', conversation_id: conversationId, page_id: config.pageId, type: conversationType, from: customer, ...message },
      post: null,
    },
  };
}

describe('pancake adapter', () => {
  it('accepts the shared token from the query string', () => {
    expect(pancakeAdapter.verify(webhook(messaging({})), config)).toEqual({ ok: true });
  });

  it('rejects a wrong or missing token', () => {
    expect(pancakeAdapter.verify(webhook(messaging({}), { token: 'guess' }), config).ok).toBe(false);
    expect(pancakeAdapter.verify(webhook(messaging({}), {}), config)).toEqual({ ok: false, reason: expect.stringContaining('missing') });
  });

  it('parses a customer inbox message; the message id is the delivery id', () => {
    const event = pancakeAdapter.parse(webhook(messaging({ message: '<div>Còn hàng không?</div>', original_message: 'Còn hàng không?' })), config);
    expect(event).toEqual({
      kind: 'message',
      deliveryId: 'm_abc123',
      conversationId,
      text: 'Còn hàng không?',
      sender: customer.id,
      replyTarget: { conversationId },
    });
  });

  it("ignores the page's own messages, comments, other events and other pages", () => {
    expect(pancakeAdapter.parse(webhook(messaging({ original_message: 'Dạ còn ạ', from: { id: config.pageId, name: 'Shop' } })), config).kind).toBe('ignored');
    expect(pancakeAdapter.parse(webhook(messaging({ original_message: 'Dạ còn ạ', from: { id: '555', name: 'Staff' } })), config).kind).toBe('ignored');
    expect(pancakeAdapter.parse(webhook(messaging({ original_message: 'nice post' }, 'COMMENT')), config).kind).toBe('ignored');
    expect(pancakeAdapter.parse(webhook({ event_type: 'subscription', data: { subscription: {} } }), config).kind).toBe('ignored');
    expect(pancakeAdapter.parse(webhook({ ...messaging({ original_message: 'hi' }), page_id: '999' }), config).kind).toBe('ignored');
  });

  it('replies to the conversation with the page access token in the query, splitting at 2000 characters', () => {
    const text = 'Xin chào '.repeat(500);
    const requests = pancakeAdapter.buildReplyRequests(config, { conversationId }, text);
    expect(requests.length).toBe(3);
    for (const request of requests) {
      expect(request.url).toBe(
        `https://pages.fm/api/public_api/v1/pages/${config.pageId}/conversations/${conversationId}/messages?page_access_token=pancake-page-access-token`,
      );
      expect(request.body.action).toBe('reply_inbox');
      expect((request.body.message as string).length).toBeLessThanOrEqual(2000);
      expect(JSON.stringify(request.headers)).not.toContain(config.accessToken);
    }
    expect(requests.map((request) => request.body.message).join('')).toBe(text);
  });
});
