import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { InboundWebhook } from './channel-adapter.js';
import { slackAdapter, type SlackConfig } from './slack.js';

const config: SlackConfig = { signingSecret: 'slack-signing-secret', botToken: 'xoxb-example-bot-token' };
const timestamp = 1700000000;
const now = new Date(timestamp * 1000);

function signed(body: unknown, at = timestamp, secret = config.signingSecret): InboundWebhook {
  const rawBody = Buffer.from(JSON.stringify(body));
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${at}:${rawBody.toString()}`).digest('hex')}`;
  return { headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': String(at) }, rawBody, query: {}, now };
}

function callback(event: Record<string, unknown>): Record<string, unknown> {
  return {
    token: 'legacy',
    team_id: 'T1',
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: 'Ev0123456789',
    event_time: timestamp,
    authorizations: [{ user_id: 'UBOT', is_bot: true }],
    event,
  };
}

const message = { type: 'message', channel: 'C42', channel_type: 'channel', user: 'U7', text: 'deploy status?', ts: '1700000000.000100' };

describe('slack adapter', () => {
  it("verifies Slack's documented example request", () => {
    const request: InboundWebhook = {
      headers: {
        'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
        'x-slack-request-timestamp': '1531420618',
      },
      rawBody: Buffer.from(
        'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
      ),
      query: {},
      now: new Date((1531420618 + 30) * 1000),
    };
    expect(slackAdapter.verify(request, { ...config, signingSecret: '8f742231b10e8888abcd99yyyzzz85a5' })).toEqual({ ok: true });
  });

  it('accepts a fresh signature and rejects a wrong one', () => {
    expect(slackAdapter.verify(signed(callback(message)), config)).toEqual({ ok: true });
    expect(slackAdapter.verify(signed(callback(message), timestamp, 'other-secret'), config).ok).toBe(false);
  });

  it('rejects timestamps more than five minutes away, in either direction', () => {
    expect(slackAdapter.verify(signed(callback(message), timestamp - 300), config).ok).toBe(true);
    expect(slackAdapter.verify(signed(callback(message), timestamp - 301), config)).toEqual({ ok: false, reason: expect.stringContaining('timestamp') });
    expect(slackAdapter.verify(signed(callback(message), timestamp + 301), config).ok).toBe(false);
  });

  it('rejects a missing signature or timestamp', () => {
    const request = signed(callback(message));
    expect(slackAdapter.verify({ ...request, headers: { ...request.headers, 'x-slack-signature': undefined } }, config).ok).toBe(false);
    expect(slackAdapter.verify({ ...request, headers: { ...request.headers, 'x-slack-request-timestamp': undefined } }, config).ok).toBe(false);
  });

  it('answers the url_verification challenge immediately', () => {
    const event = slackAdapter.parse(signed({ token: 't', challenge: 'abc123', type: 'url_verification' }), config);
    expect(event).toEqual({ kind: 'immediate', status: 200, body: { challenge: 'abc123' } });
  });

  it('parses a message; event_id is the delivery id and channel plus thread the conversation', () => {
    expect(slackAdapter.parse(signed(callback(message)), config)).toEqual({
      kind: 'message',
      deliveryId: 'Ev0123456789',
      conversationId: 'C42:1700000000.000100',
      text: 'deploy status?',
      sender: 'U7',
      replyTarget: { channel: 'C42', threadTs: '1700000000.000100' },
    });
    const inThread = slackAdapter.parse(signed(callback({ ...message, ts: '1700000050.000200', thread_ts: '1700000000.000100' })), config);
    expect(inThread).toMatchObject({ conversationId: 'C42:1700000000.000100', replyTarget: { threadTs: '1700000000.000100' } });
    const mention = slackAdapter.parse(signed(callback({ ...message, type: 'app_mention', text: '<@UBOT> deploy status?' })), config);
    expect(mention).toMatchObject({ kind: 'message', text: '<@UBOT> deploy status?' });
  });

  it("ignores bot messages (its own included), subtypes, other events and a mention's duplicate message event", () => {
    expect(slackAdapter.parse(signed(callback({ ...message, bot_id: 'B1', user: 'UBOT' })), config).kind).toBe('ignored');
    expect(slackAdapter.parse(signed(callback({ ...message, subtype: 'message_changed' })), config).kind).toBe('ignored');
    expect(slackAdapter.parse(signed(callback({ type: 'reaction_added', user: 'U7', reaction: 'tada' })), config).kind).toBe('ignored');
    expect(slackAdapter.parse(signed(callback({ ...message, text: '<@UBOT> deploy status?' })), config).kind).toBe('ignored');
  });

  it('posts to chat.postMessage in the thread with the bot token, splitting at 4000 characters', () => {
    const text = 'line of text\n'.repeat(700);
    const requests = slackAdapter.buildReplyRequests(config, { channel: 'C42', threadTs: '1700000000.000100' }, text);
    expect(requests.length).toBe(3);
    for (const request of requests) {
      expect(request.url).toBe('https://slack.com/api/chat.postMessage');
      expect(request.headers.authorization).toBe('Bearer xoxb-example-bot-token');
      expect(request.body).toMatchObject({ channel: 'C42', thread_ts: '1700000000.000100' });
      expect((request.body.text as string).length).toBeLessThanOrEqual(4000);
    }
    expect(requests.map((request) => request.body.text).join('')).toBe(text);
  });
});
