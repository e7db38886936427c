import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { isHttpUrl } from '../outbound/http-url.js';
import { channelAdapters, channelProviders, isChannelProvider, type ChannelProvider } from './channel-registry.js';
import { discordConfigSchema } from './discord.js';
import { githubConfigSchema } from './github.js';
import { pancakeConfigSchema } from './pancake.js';
import { slackConfigSchema } from './slack.js';
import { telegramConfigSchema } from './telegram.js';
import { zaloConfigSchema } from './zalo.js';
import { describeZodIssue, zodIssueError } from '../config-parsing/zod-issue.js';

/**
 * The adapters' config schemas made strict for writes: a misspelt field (`apiBaseURL`,
 * `secretTokn`) is refused instead of silently dropped.
 */
const strictSchemas: Record<ChannelProvider, z.ZodType> = {
  telegram: telegramConfigSchema.strict(),
  github: githubConfigSchema.strict(),
  slack: slackConfigSchema.strict(),
  discord: discordConfigSchema.strict(),
  pancake: pancakeConfigSchema.strict(),
  zalo: zaloConfigSchema.strict(),
};

/** The shared description, plus two of the adapters' ways: a bare "is required", and messages that already start with the field's name. */
function describeIssue(prefix: string, issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return `${[prefix, ...issue.path.map(String)].join('.')} is required`;
  // Some adapter messages already start with the field's name ("publicKey must be ...").
  const field = String(issue.path.at(-1) ?? '');
  if (issue.code === 'unrecognized_keys' || field === '' || !issue.message.startsWith(`${field} `)) return describeZodIssue(prefix, issue);
  return describeZodIssue(prefix, { ...issue, message: issue.message.slice(field.length + 1) });
}

/**
 * Validates `config.channels` on write: known providers only, each with its adapter's
 * fields (secrets included), and an http(s) `apiBaseUrl`. The error names the first
 * offending path, e.g. `config.channels.telegram.secretToken is required`.
 */
export function validateChannelsConfig(channels: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const validated: Record<string, Record<string, unknown>> = {};
  for (const [provider, settings] of Object.entries(channels)) {
    const prefix = `config.channels.${provider}`;
    if (!isChannelProvider(provider)) {
      throw new InvalidRequestError(`${prefix} is not a known channel provider (known: ${channelProviders.join(', ')})`);
    }
    if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
      throw new InvalidRequestError(`${prefix} must be an object of channel settings`);
    }
    const parsed = strictSchemas[provider].safeParse(settings);
    if (!parsed.success) throw zodIssueError(prefix, parsed.error, describeIssue);
    const apiBaseUrl = (parsed.data as { apiBaseUrl?: string }).apiBaseUrl;
    if (apiBaseUrl !== undefined && !isHttpUrl(apiBaseUrl)) {
      throw new InvalidRequestError(`${prefix}.apiBaseUrl must be an absolute http(s) URL`);
    }
    validated[provider] = parsed.data as Record<string, unknown>;
  }
  return validated;
}

/**
 * A provider's settings as stored, parsed for use; `undefined` when the agent has not
 * configured the provider (or its stored settings no longer parse).
 */
export function channelConfigOf(channels: Record<string, unknown> | undefined, provider: ChannelProvider): unknown {
  const settings = channels?.[provider];
  if (settings === undefined || settings === null) return undefined;
  const parsed = channelAdapters[provider].configSchema.safeParse(settings);
  return parsed.success ? parsed.data : undefined;
}
