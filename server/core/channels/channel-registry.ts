import type { ChannelAdapter } from './channel-adapter.js';
import { discordAdapter } from './discord.js';
import { githubAdapter } from './github.js';
import { pancakeAdapter } from './pancake.js';
import { slackAdapter } from './slack.js';
import { telegramAdapter } from './telegram.js';
import { zaloAdapter } from './zalo.js';

/**
 * Every channel provider, keyed by its webhook path segment. Static on purpose: a
 * provider exists only if it is listed here.
 */
export const channelAdapters = {
  telegram: telegramAdapter,
  github: githubAdapter,
  slack: slackAdapter,
  discord: discordAdapter,
  pancake: pancakeAdapter,
  zalo: zaloAdapter,
} as const;

export type ChannelProvider = keyof typeof channelAdapters;

export const channelProviders = Object.keys(channelAdapters) as ChannelProvider[];

export function isChannelProvider(name: string): name is ChannelProvider {
  return Object.hasOwn(channelAdapters, name);
}

/**
 * The adapter for a path segment, typed loosely for callers that hold the config as
 * stored (unknown): parse it with `adapter.configSchema` and any stored reply target with
 * `adapter.replyTargetSchema` before calling the other methods.
 */
export function getChannelAdapter(provider: string): ChannelAdapter | undefined {
  if (!isChannelProvider(provider)) return undefined;
  return channelAdapters[provider] as unknown as ChannelAdapter;
}
