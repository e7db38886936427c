import { describe, expect, it } from 'vitest';
import { channelAdapters, channelProviders, getChannelAdapter, isChannelProvider } from './channel-registry.js';

describe('channel adapter registry', () => {
  it('holds the six providers, each under its own path segment', () => {
    expect(channelProviders).toEqual(['telegram', 'github', 'slack', 'discord', 'pancake', 'zalo']);
    for (const provider of channelProviders) expect(channelAdapters[provider].provider).toBe(provider);
  });

  it('knows nothing else, prototype keys included', () => {
    expect(getChannelAdapter('whatsapp')).toBeUndefined();
    expect(isChannelProvider('__proto__')).toBe(false);
    expect(isChannelProvider('toString')).toBe(false);
    expect(getChannelAdapter('slack')?.provider).toBe('slack');
  });

  it('requires every secret field in the config', () => {
    const required: Record<string, string[]> = {
      telegram: ['botToken', 'secretToken'],
      github: ['webhookSecret', 'token'],
      slack: ['signingSecret', 'botToken'],
      discord: ['publicKey', 'applicationId', 'botToken'],
      pancake: ['pageId', 'accessToken', 'verifyToken'],
      zalo: ['secretToken', 'accessToken'],
    };
    for (const provider of channelProviders) {
      const result = channelAdapters[provider].configSchema.safeParse({});
      expect(result.success).toBe(false);
      const missing = result.error?.issues.map((issue) => issue.path.join('.')).sort();
      expect(missing).toEqual([...(required[provider] ?? [])].sort());
    }
  });

  it('rejects an apiBaseUrl that is not a URL', () => {
    const result = channelAdapters.zalo.configSchema.safeParse({ secretToken: 's', accessToken: 'a', apiBaseUrl: 'not a url' });
    expect(result.success).toBe(false);
  });
});
