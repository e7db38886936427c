import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { ChannelAdapter, InboundEvent, OutboundRequest } from './channel-adapter.js';
import { constantTimeEqual } from './constant-time-equal.js';
import { splitReplyText } from './split-reply-text.js';
import { checkTimestampWindow, parseJsonBody, resolveApiBaseUrl } from './webhook-helpers.js';

/** `config.channels.slack`. */
export const slackConfigSchema = z.object({
  /** The app's Signing Secret (Basic Information), used to check X-Slack-Signature. */
  signingSecret: z.string().min(1),
  /** The bot token (`xoxb-...`) with `chat:write`. */
  botToken: z.string().min(1),
  apiBaseUrl: z.url().optional(),
});
export type SlackConfig = z.infer<typeof slackConfigSchema>;

export const slackReplyTargetSchema = z.object({
  channel: z.string().min(1),
  /** Replies always go into the thread of the message that started the conversation. */
  threadTs: z.string().min(1),
});
export type SlackReplyTarget = z.infer<typeof slackReplyTargetSchema>;

const signatureHeader = 'x-slack-signature';
const timestampHeader = 'x-slack-request-timestamp';
/**
 * Slack truncates `text` past 40,000 characters but recommends staying under 4,000;
 * longer messages are also hard to read, so we split at 4,000.
 */
const replyLimit = 4000;

const urlVerificationSchema = z.object({ type: z.literal('url_verification'), challenge: z.string() });
const eventCallbackSchema = z.object({
  type: z.literal('event_callback'),
  event_id: z.string(),
  authorizations: z.array(z.object({ user_id: z.string().optional() })).optional(),
  event: z.object({
    type: z.string(),
    subtype: z.string().optional(),
    bot_id: z.string().optional(),
    user: z.string().optional(),
    text: z.string().optional(),
    channel: z.string().optional(),
    channel_type: z.string().optional(),
    ts: z.string().optional(),
    thread_ts: z.string().optional(),
  }),
});

/** Slack Events API: https://api.slack.com/authentication/verifying-requests-from-slack. */
export const slackAdapter: ChannelAdapter<SlackConfig, SlackReplyTarget> = {
  provider: 'slack',
  configSchema: slackConfigSchema,
  replyTargetSchema: slackReplyTargetSchema,
  replyLimit,

  verify(request, config) {
    const signature = request.headers[signatureHeader];
    const timestamp = request.headers[timestampHeader];
    if (signature === undefined) return { ok: false, reason: `missing ${signatureHeader} header` };
    if (timestamp === undefined) return { ok: false, reason: `missing ${timestampHeader} header` };
    const stale = checkTimestampWindow(timestamp, request.now);
    if (stale !== undefined) return { ok: false, reason: stale };
    const base = Buffer.concat([Buffer.from(`v0:${timestamp}:`, 'utf8'), request.rawBody]);
    const expected = `v0=${createHmac('sha256', config.signingSecret).update(base).digest('hex')}`;
    if (!constantTimeEqual(signature, expected)) return { ok: false, reason: `${signatureHeader} does not match the body` };
    return { ok: true };
  },

  parse(request): InboundEvent {
    const payload = parseJsonBody(request.rawBody);
    const challenge = urlVerificationSchema.safeParse(payload);
    if (challenge.success) return { kind: 'immediate', status: 200, body: { challenge: challenge.data.challenge } };
    const parsed = eventCallbackSchema.safeParse(payload);
    if (!parsed.success) return { kind: 'ignored', reason: 'not an event_callback' };
    const { event_id: eventId, event, authorizations } = parsed.data;
    if (event.type !== 'message' && event.type !== 'app_mention') return { kind: 'ignored', reason: `event type ${event.type}` };
    if (event.bot_id !== undefined) return { kind: 'ignored', reason: 'message from a bot' };
    if (event.subtype !== undefined) return { kind: 'ignored', reason: `message subtype ${event.subtype}` };
    if (event.text === undefined || event.channel === undefined || event.ts === undefined || event.user === undefined) {
      return { kind: 'ignored', reason: 'message without text, channel, ts or user' };
    }
    // An app subscribed to both message.channels and app_mention gets a mention twice,
    // under two event ids; answer it once, as the app_mention.
    const botUserId = authorizations?.[0]?.user_id;
    if (event.type === 'message' && event.channel_type !== 'im' && botUserId !== undefined && event.text.includes(`<@${botUserId}>`)) {
      return { kind: 'ignored', reason: 'mention; handled by its app_mention event' };
    }
    const threadTs = event.thread_ts ?? event.ts;
    return {
      kind: 'message',
      deliveryId: eventId,
      conversationId: `${event.channel}:${threadTs}`,
      text: event.text,
      sender: event.user,
      replyTarget: { channel: event.channel, threadTs },
    };
  },

  buildReplyRequests(config, target, text): OutboundRequest[] {
    const base = resolveApiBaseUrl(config.apiBaseUrl, 'https://slack.com');
    return splitReplyText(text, replyLimit).map((piece) => ({
      method: 'POST',
      url: `${base}/api/chat.postMessage`,
      headers: { authorization: `Bearer ${config.botToken}`, 'content-type': 'application/json; charset=utf-8' },
      body: { channel: target.channel, text: piece, thread_ts: target.threadTs },
    }));
  },
};
