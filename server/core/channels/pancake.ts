import { z } from 'zod';
import type { ChannelAdapter, InboundEvent, OutboundRequest } from './channel-adapter.js';
import { splitReplyText } from './split-reply-text.js';
import { parseJsonBody, resolveApiBaseUrl, verifySharedToken } from './webhook-helpers.js';

/** `config.channels.pancake`. */
export const pancakeConfigSchema = z.object({
  pageId: z.string().min(1),
  /** The page access token (Page settings, Tools); Pancake takes it as a query parameter. */
  accessToken: z.string().min(1),
  /** Our own shared secret, carried in the webhook URL's `token` query parameter. */
  verifyToken: z.string().min(1),
  apiBaseUrl: z.url().optional(),
});
export type PancakeConfig = z.infer<typeof pancakeConfigSchema>;

export const pancakeReplyTargetSchema = z.object({ conversationId: z.string().min(1) });
export type PancakeReplyTarget = z.infer<typeof pancakeReplyTargetSchema>;

/** Pancake relays mostly Messenger conversations, whose text limit is 2000 characters. */
const replyLimit = 2000;

const senderSchema = z.object({ id: z.string(), name: z.string().optional() });
const messagingSchema = z.object({
  page_id: z.union([z.string(), z.number()]).optional(),
  event_type: z.string(),
  data: z
    .object({
      conversation: z.object({ id: z.string(), type: z.string().optional(), from: senderSchema.optional() }).optional(),
      message: z
        .object({
          id: z.string(),
          conversation_id: z.string().optional(),
          message: z.string().nullable().optional(),
          original_message: z.string().nullable().optional(),
          type: z.string().optional(),
          from: senderSchema,
        })
        .optional(),
    })
    .optional(),
});

/**
 * Pancake (pages.fm) webhooks: `{page_id, event_type: "messaging", data: {conversation,
 * message}}`. Pancake signs nothing, so the webhook URL carries a shared token.
 */
export const pancakeAdapter: ChannelAdapter<PancakeConfig, PancakeReplyTarget> = {
  provider: 'pancake',
  configSchema: pancakeConfigSchema,
  replyTargetSchema: pancakeReplyTargetSchema,
  replyLimit,

  verify(request, config) {
    return verifySharedToken(request.query.token, config.verifyToken, 'token query parameter');
  },

  parse(request, config): InboundEvent {
    const parsed = messagingSchema.safeParse(parseJsonBody(request.rawBody));
    if (!parsed.success) return { kind: 'ignored', reason: 'not a Pancake webhook' };
    const { event_type: eventType, page_id: pageId, data } = parsed.data;
    if (eventType !== 'messaging') return { kind: 'ignored', reason: `event type ${eventType}` };
    if (pageId !== undefined && String(pageId) !== config.pageId) return { kind: 'ignored', reason: 'another page' };
    const message = data?.message;
    if (message === undefined) return { kind: 'ignored', reason: 'messaging event without a message' };
    const conversationId = message.conversation_id ?? data?.conversation?.id;
    if (conversationId === undefined) return { kind: 'ignored', reason: 'message without a conversation' };
    const conversationType = data?.conversation?.type ?? message.type;
    if (conversationType !== undefined && conversationType !== 'INBOX') return { kind: 'ignored', reason: `conversation type ${conversationType}` };
    // The page's own replies (ours or staff's) come back as messages from the page.
    const customerId = data?.conversation?.from?.id;
    if (message.from.id === config.pageId || (customerId !== undefined && message.from.id !== customerId)) {
      return { kind: 'ignored', reason: 'message sent by the page' };
    }
    const text = message.original_message ?? message.message ?? '';
    if (text.trim() === '') return { kind: 'ignored', reason: 'message without text' };
    return {
      kind: 'message',
      deliveryId: message.id,
      conversationId,
      text,
      sender: message.from.id,
      replyTarget: { conversationId },
    };
  },

  buildReplyRequests(config, target, text): OutboundRequest[] {
    const base = resolveApiBaseUrl(config.apiBaseUrl, 'https://pages.fm/api/public_api/v1');
    const path = `/pages/${encodeURIComponent(config.pageId)}/conversations/${encodeURIComponent(target.conversationId)}/messages`;
    const query = new URLSearchParams({ page_access_token: config.accessToken });
    return splitReplyText(text, replyLimit).map((piece) => ({
      method: 'POST',
      url: `${base}${path}?${query.toString()}`,
      headers: { 'content-type': 'application/json' },
      body: { action: 'reply_inbox', message: piece },
    }));
  },
};
