import { z } from 'zod';
import type { ChannelAdapter, InboundEvent, OutboundRequest } from './channel-adapter.js';
import { splitReplyText } from './split-reply-text.js';
import { parseJsonBody, resolveApiBaseUrl, verifySharedToken } from './webhook-helpers.js';

/** `config.channels.telegram`. */
export const telegramConfigSchema = z.object({
  /** From @BotFather; used only in the Bot API URL path. */
  botToken: z.string().min(1),
  /** The `secret_token` given to setWebhook; Telegram echoes it in a header. */
  secretToken: z.string().min(1),
  apiBaseUrl: z.url().optional(),
});
export type TelegramConfig = z.infer<typeof telegramConfigSchema>;

export const telegramReplyTargetSchema = z.object({
  chatId: z.union([z.number(), z.string()]),
  /** Forum topic, when the message came from one. */
  messageThreadId: z.number().optional(),
});
export type TelegramReplyTarget = z.infer<typeof telegramReplyTargetSchema>;

const updateSchema = z.object({
  update_id: z.number(),
  message: z
    .object({
      message_thread_id: z.number().optional(),
      is_topic_message: z.boolean().optional(),
      from: z.object({ id: z.number(), is_bot: z.boolean(), username: z.string().optional() }).optional(),
      chat: z.object({ id: z.number() }),
      text: z.string().optional(),
    })
    .optional(),
});

const secretHeader = 'x-telegram-bot-api-secret-token';
/** sendMessage accepts 1-4096 characters of text. */
const replyLimit = 4096;

/** Telegram Bot API: https://core.telegram.org/bots/api#setwebhook and #sendmessage. */
export const telegramAdapter: ChannelAdapter<TelegramConfig, TelegramReplyTarget> = {
  provider: 'telegram',
  configSchema: telegramConfigSchema,
  replyTargetSchema: telegramReplyTargetSchema,
  replyLimit,

  verify(request, config) {
    return verifySharedToken(request.headers[secretHeader], config.secretToken, `${secretHeader} header`);
  },

  parse(request): InboundEvent {
    const parsed = updateSchema.safeParse(parseJsonBody(request.rawBody));
    if (!parsed.success) return { kind: 'ignored', reason: 'not a Telegram update' };
    const { update_id: updateId, message } = parsed.data;
    if (message === undefined) return { kind: 'ignored', reason: 'update without a message' };
    if (message.text === undefined) return { kind: 'ignored', reason: 'message without text' };
    if (message.from?.is_bot === true) return { kind: 'ignored', reason: 'message from a bot' };
    // Each forum topic is its own conversation; a plain chat is one conversation.
    const topic = message.is_topic_message === true ? message.message_thread_id : undefined;
    const conversationId = topic === undefined ? String(message.chat.id) : `${message.chat.id}:${topic}`;
    return {
      kind: 'message',
      deliveryId: String(updateId),
      conversationId,
      text: message.text,
      sender: message.from === undefined ? String(message.chat.id) : String(message.from.id),
      replyTarget: topic === undefined ? { chatId: message.chat.id } : { chatId: message.chat.id, messageThreadId: topic },
    };
  },

  buildReplyRequests(config, target, text): OutboundRequest[] {
    const base = resolveApiBaseUrl(config.apiBaseUrl, 'https://api.telegram.org');
    return splitReplyText(text, replyLimit).map((piece) => ({
      method: 'POST',
      url: `${base}/bot${config.botToken}/sendMessage`,
      headers: { 'content-type': 'application/json' },
      body: {
        chat_id: target.chatId,
        text: piece,
        ...(target.messageThreadId === undefined ? {} : { message_thread_id: target.messageThreadId }),
      },
    }));
  },
};
