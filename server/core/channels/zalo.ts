import { z } from 'zod';
import type { ChannelAdapter, InboundEvent, OutboundRequest } from './channel-adapter.js';
import { splitReplyText } from './split-reply-text.js';
import { parseJsonBody, resolveApiBaseUrl, verifySharedToken } from './webhook-helpers.js';

/** `config.channels.zalo` (Zalo Bot Platform, bot.zaloplatforms.com). */
export const zaloConfigSchema = z.object({
  /** The `secret_token` given to setWebhook; Zalo echoes it in X-Bot-Api-Secret-Token. */
  secretToken: z.string().min(1),
  /** The bot token; the Bot API takes it in the URL path, as Telegram does. */
  accessToken: z.string().min(1),
  apiBaseUrl: z.url().optional(),
});
export type ZaloConfig = z.infer<typeof zaloConfigSchema>;

export const zaloReplyTargetSchema = z.object({ chatId: z.string().min(1) });
export type ZaloReplyTarget = z.infer<typeof zaloReplyTargetSchema>;

const secretHeader = 'x-bot-api-secret-token';
/** sendMessage accepts at most 2000 characters. */
const replyLimit = 2000;

const updateSchema = z.object({
  event_name: z.string(),
  message: z
    .object({
      message_id: z.string(),
      from: z.object({ id: z.string(), display_name: z.string().optional(), is_bot: z.boolean().optional() }),
      chat: z.object({ id: z.string(), chat_type: z.string().optional() }),
      text: z.string().optional(),
    })
    .optional(),
});
/** Deliveries come as `{ok, result: update}`, like getUpdates answers; a bare update is accepted too. */
const envelopeSchema = z.object({ result: z.unknown() });

/** Zalo Bot API: https://bot.zapps.me/docs (webhook and sendMessage). */
export const zaloAdapter: ChannelAdapter<ZaloConfig, ZaloReplyTarget> = {
  provider: 'zalo',
  configSchema: zaloConfigSchema,
  replyTargetSchema: zaloReplyTargetSchema,
  replyLimit,

  verify(request, config) {
    return verifySharedToken(request.headers[secretHeader], config.secretToken, `${secretHeader} header`);
  },

  parse(request): InboundEvent {
    const payload = parseJsonBody(request.rawBody);
    const envelope = envelopeSchema.safeParse(payload);
    const parsed = updateSchema.safeParse(envelope.success ? envelope.data.result : payload);
    if (!parsed.success) return { kind: 'ignored', reason: 'not a Zalo Bot update' };
    const { event_name: eventName, message } = parsed.data;
    if (eventName !== 'message.text.received') return { kind: 'ignored', reason: `event ${eventName}` };
    if (message === undefined || message.text === undefined) return { kind: 'ignored', reason: 'message without text' };
    if (message.from.is_bot === true) return { kind: 'ignored', reason: 'message from a bot' };
    return {
      kind: 'message',
      deliveryId: message.message_id,
      conversationId: message.chat.id,
      text: message.text,
      sender: message.from.id,
      replyTarget: { chatId: message.chat.id },
    };
  },

  buildReplyRequests(config, target, text): OutboundRequest[] {
    const base = resolveApiBaseUrl(config.apiBaseUrl, 'https://bot-api.zaloplatforms.com');
    return splitReplyText(text, replyLimit).map((piece) => ({
      method: 'POST',
      url: `${base}/bot${config.accessToken}/sendMessage`,
      headers: { 'content-type': 'application/json' },
      body: { chat_id: target.chatId, text: piece },
    }));
  },
};
