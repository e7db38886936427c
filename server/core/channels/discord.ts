import { createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import type { ChannelAdapter, InboundEvent, OutboundRequest } from './channel-adapter.js';
import { splitReplyText } from './split-reply-text.js';
import { checkTimestampWindow, parseJsonBody, resolveApiBaseUrl } from './webhook-helpers.js';

/** `config.channels.discord`. */
export const discordConfigSchema = z.object({
  /** The application's public key (General Information), 32 bytes in hex. */
  publicKey: z.string().regex(/^[0-9a-fA-F]{64}$/, 'publicKey must be 64 hex characters'),
  applicationId: z.string().min(1),
  /** Not needed to answer interactions (the interaction token is), kept for commands registration. */
  botToken: z.string().min(1),
  apiBaseUrl: z.url().optional(),
});
export type DiscordConfig = z.infer<typeof discordConfigSchema>;

export const discordReplyTargetSchema = z.object({
  applicationId: z.string().min(1),
  /** Valid for 15 minutes after the interaction. */
  interactionToken: z.string().min(1),
});
export type DiscordReplyTarget = z.infer<typeof discordReplyTargetSchema>;

const signatureHeader = 'x-signature-ed25519';
const timestampHeader = 'x-signature-timestamp';
/** A message's `content` holds at most 2000 characters. */
const replyLimit = 2000;
/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it. */
const ed25519SpkiPrefix = Buffer.from('302a300506032b6570032100', 'hex');

const interactionType = { ping: 1, applicationCommand: 2, messageComponent: 3, autocomplete: 4, modalSubmit: 5 } as const;
const callbackType = { pong: 1, channelMessage: 4, deferredChannelMessage: 5, deferredUpdateMessage: 6, autocompleteResult: 8 } as const;
const optionType = { subCommand: 1, subCommandGroup: 2, string: 3 } as const;
const ephemeralFlag = 64;

interface CommandOption {
  type: number;
  name: string;
  value?: unknown;
  options?: CommandOption[];
}
const optionSchema: z.ZodType<CommandOption> = z.lazy(() =>
  z.object({ type: z.number(), name: z.string(), value: z.unknown().optional(), options: z.array(optionSchema).optional() }),
);
const userSchema = z.object({ id: z.string(), username: z.string().optional() });
const interactionSchema = z.object({
  id: z.string(),
  application_id: z.string(),
  type: z.number(),
  token: z.string(),
  channel_id: z.string().optional(),
  guild_id: z.string().optional(),
  member: z.object({ user: userSchema }).optional(),
  user: userSchema.optional(),
  data: z.object({ name: z.string().optional(), options: z.array(optionSchema).optional() }).optional(),
});

/** Discord interactions: https://discord.com/developers/docs/interactions/overview. */
export const discordAdapter: ChannelAdapter<DiscordConfig, DiscordReplyTarget> = {
  provider: 'discord',
  configSchema: discordConfigSchema,
  replyTargetSchema: discordReplyTargetSchema,
  replyLimit,

  verify(request, config) {
    const signature = request.headers[signatureHeader];
    const timestamp = request.headers[timestampHeader];
    if (signature === undefined) return { ok: false, reason: `missing ${signatureHeader} header` };
    if (timestamp === undefined) return { ok: false, reason: `missing ${timestampHeader} header` };
    const stale = checkTimestampWindow(timestamp, request.now);
    if (stale !== undefined) return { ok: false, reason: stale };
    if (!/^[0-9a-fA-F]{128}$/.test(signature)) return { ok: false, reason: `${signatureHeader} is not a 64-byte hex signature` };
    const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), request.rawBody]);
    let valid: boolean;
    try {
      valid = verifySignature(null, signed, publicKeyObject(config.publicKey), Buffer.from(signature, 'hex'));
    } catch {
      valid = false;
    }
    return valid ? { ok: true } : { ok: false, reason: `${signatureHeader} does not match the body` };
  },

  parse(request, config): InboundEvent {
    const parsed = interactionSchema.safeParse(parseJsonBody(request.rawBody));
    if (!parsed.success) return { kind: 'ignored', reason: 'not a Discord interaction' };
    const interaction = parsed.data;
    switch (interaction.type) {
      case interactionType.ping:
        return { kind: 'immediate', status: 200, body: { type: callbackType.pong } };
      case interactionType.applicationCommand:
        break;
      case interactionType.autocomplete:
        return { kind: 'immediate', status: 200, body: { type: callbackType.autocompleteResult, data: { choices: [] } } };
      default:
        // Buttons and modals: acknowledge so Discord does not show "interaction failed".
        return { kind: 'immediate', status: 200, body: { type: callbackType.deferredUpdateMessage } };
    }
    const prompt = findStringOption(interaction.data?.options ?? []);
    if (prompt === undefined || prompt.trim() === '') {
      return {
        kind: 'immediate',
        status: 200,
        body: { type: callbackType.channelMessage, data: { content: 'This command needs a text prompt.', flags: ephemeralFlag } },
      };
    }
    const user = interaction.member?.user ?? interaction.user;
    const conversationId = interaction.channel_id ?? user?.id ?? interaction.id;
    return {
      kind: 'immediate',
      status: 200,
      // Model turns take longer than Discord's 3-second window: defer, then follow up.
      body: { type: callbackType.deferredChannelMessage },
      then: {
        kind: 'message',
        deliveryId: interaction.id,
        conversationId,
        text: prompt,
        sender: user?.id ?? 'unknown',
        replyTarget: { applicationId: config.applicationId, interactionToken: interaction.token },
      },
    };
  },

  buildReplyRequests(config, target, text): OutboundRequest[] {
    const base = resolveApiBaseUrl(config.apiBaseUrl, 'https://discord.com/api/v10');
    // The interaction token in the path is the credential; no bot token is sent.
    const url = `${base}/webhooks/${encodeURIComponent(target.applicationId)}/${encodeURIComponent(target.interactionToken)}`;
    return splitReplyText(text, replyLimit).map((piece) => ({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      // Model output must not ping @everyone or roles.
      body: { content: piece, allowed_mentions: { parse: [] } },
    }));
  },
};

function publicKeyObject(publicKeyHex: string): KeyObject {
  return createPublicKey({ key: Buffer.concat([ed25519SpkiPrefix, Buffer.from(publicKeyHex, 'hex')]), format: 'der', type: 'spki' });
}

/** The first string option, looking inside subcommands and subcommand groups. */
function findStringOption(options: CommandOption[]): string | undefined {
  for (const option of options) {
    if (option.type === optionType.string && typeof option.value === 'string') return option.value;
    if (option.type === optionType.subCommand || option.type === optionType.subCommandGroup) {
      const nested = findStringOption(option.options ?? []);
      if (nested !== undefined) return nested;
    }
  }
  return undefined;
}
