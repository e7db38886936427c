import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createAccount, startTestServices, type TestServices } from './support/test-services.js';

let services: TestServices;
let account: { accountId: string; secret: string };

const telegram = { botToken: '123456:telegram-bot-token-abc', secretToken: 'telegram-secret-token-0123' };

async function put(agentId: string, channels: unknown) {
  return services.accountApp.inject({ method: 'PUT', url: `/accounts/me/agents/${agentId}`, headers: bearer(account.secret), payload: { config: { channels } } });
}

beforeAll(async () => {
  services = await startTestServices();
  account = await createAccount(services.accountApp, 'channel-config');
});

afterAll(async () => {
  await services.close();
});

describe('config.channels', () => {
  it.each([
    [{ telegram: { botToken: 'x' } }, 'config.channels.telegram.secretToken is required'],
    [{ myspace: {} }, 'config.channels.myspace is not a known channel provider (known: telegram, github, slack, discord, pancake, zalo)'],
    [{ telegram: { ...telegram, apiBaseURL: 'http://x' } }, 'config.channels.telegram.apiBaseURL is not allowed here'],
    [{ telegram: { ...telegram, apiBaseUrl: 'ftp://files.example' } }, 'config.channels.telegram.apiBaseUrl must be an absolute http(s) URL'],
    [{ discord: { publicKey: 'abc', applicationId: '1', botToken: 'discord-bot-token' } }, 'config.channels.discord.publicKey must be 64 hex characters'],
    [{ slack: 'yes' }, 'config.channels.slack must be an object of channel settings'],
  ])('refuses %j with a 400 naming the field', async (channels, message) => {
    const response = await put('invalid', channels);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 'invalid_request', message } });
  });

  it('stores secrets encrypted, shows them redacted, keeps them through a redacted round trip, and removes a provider with null', async () => {
    const created = await put('bot', { telegram, pancake: { pageId: 'page-1', accessToken: 'pancake-access-token-0123', verifyToken: 'pancake-verify-token-0123' } });
    expect(created.statusCode).toBe(201);
    const shown = created.json<{ config: { channels: Record<string, Record<string, unknown>> } }>().config.channels;
    expect(shown.telegram).toEqual({ botToken: { redacted: true, last4: '-abc' }, secretToken: { redacted: true, last4: '0123' } });
    expect(shown.pancake?.pageId).toBe('page-1');

    // Sending back what was shown keeps the stored secrets.
    const again = await services.accountApp.inject({ method: 'PUT', url: '/accounts/me/agents/bot', headers: bearer(account.secret), payload: { config: { channels: shown } } });
    expect(again.statusCode).toBe(200);
    const stored = await services.core.agents.load(account.accountId, 'bot');
    expect(stored.config.channels?.telegram).toEqual(telegram);

    const removed = await services.accountApp.inject({
      method: 'PATCH',
      url: '/accounts/me/agents/bot',
      headers: { ...bearer(account.secret), 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ config: { channels: { pancake: null } } }),
    });
    expect(removed.statusCode).toBe(200);
    expect(Object.keys(removed.json<{ config: { channels: object } }>().config.channels)).toEqual(['telegram']);
  });
});
