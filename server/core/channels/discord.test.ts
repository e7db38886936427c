import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { InboundWebhook } from './channel-adapter.js';
import { discordAdapter, type DiscordConfig } from './discord.js';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const otherKeys = generateKeyPairSync('ed25519');
const rawPublicKeyHex = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');

const config: DiscordConfig = { publicKey: rawPublicKeyHex, applicationId: '1100000000000000001', botToken: 'discord-bot-token-example' };
const timestamp = 1700000000;
const now = new Date(timestamp * 1000);

function signed(body: unknown, at = timestamp, key: KeyObject = privateKey): InboundWebhook {
  const rawBody = Buffer.from(JSON.stringify(body));
  const signature = sign(null, Buffer.concat([Buffer.from(String(at)), rawBody]), key).toString('hex');
  return { headers: { 'x-signature-ed25519': signature, 'x-signature-timestamp': String(at) }, rawBody, query: {}, now };
}

const command = {
  id: '1200000000000000042',
  application_id: config.applicationId,
  type: 2,
  token: 'interaction-token-abc',
  version: 1,
  channel_id: '1300000000000000007',
  guild_id: '1400000000000000001',
  member: { user: { id: '1500000000000000009', username: 'ada' } },
  data: { id: '1600000000000000001', name: 'ask', type: 1, options: [{ name: 'prompt', type: 3, value: 'Summarise the release notes' }] },
};

describe('discord adapter', () => {
  it('verifies an Ed25519 signature over timestamp and body', () => {
    expect(discordAdapter.verify(signed(command), config)).toEqual({ ok: true });
  });

  it('rejects a signature by another key, a changed body and a malformed signature', () => {
    expect(discordAdapter.verify(signed(command, timestamp, otherKeys.privateKey), config).ok).toBe(false);
    expect(discordAdapter.verify({ ...signed(command), rawBody: Buffer.from('{"type":1}') }, config).ok).toBe(false);
    const request = signed(command);
    expect(discordAdapter.verify({ ...request, headers: { ...request.headers, 'x-signature-ed25519': 'zz' } }, config).ok).toBe(false);
  });

  it('rejects timestamps more than five minutes away', () => {
    expect(discordAdapter.verify(signed(command, timestamp - 301), config)).toEqual({ ok: false, reason: expect.stringContaining('timestamp') });
    expect(discordAdapter.verify(signed(command, timestamp + 301), config).ok).toBe(false);
  });

  it('rejects missing signature or timestamp headers', () => {
    const request = signed(command);
    expect(discordAdapter.verify({ ...request, headers: { 'x-signature-timestamp': String(timestamp) } }, config).ok).toBe(false);
    expect(discordAdapter.verify({ ...request, headers: { 'x-signature-ed25519': request.headers['x-signature-ed25519'] } }, config).ok).toBe(false);
  });

  it('answers PING with PONG', () => {
    expect(discordAdapter.parse(signed({ id: '1', application_id: config.applicationId, type: 1, token: 't', version: 1 }), config)).toEqual({
      kind: 'immediate',
      status: 200,
      body: { type: 1 },
    });
  });

  it('defers a slash command, then yields its prompt as a message', () => {
    expect(discordAdapter.parse(signed(command), config)).toEqual({
      kind: 'immediate',
      status: 200,
      body: { type: 5 },
      then: {
        kind: 'message',
        deliveryId: '1200000000000000042',
        conversationId: '1300000000000000007',
        text: 'Summarise the release notes',
        sender: '1500000000000000009',
        replyTarget: { applicationId: config.applicationId, interactionToken: 'interaction-token-abc' },
      },
    });
  });

  it('finds the prompt inside a subcommand', () => {
    const nested = { ...command, data: { ...command.data, options: [{ name: 'run', type: 1, options: [{ name: 'text', type: 3, value: 'hi' }] }] } };
    expect(discordAdapter.parse(signed(nested), config)).toMatchObject({ then: { text: 'hi' } });
  });

  it('does not start a turn for a command without a prompt or for components', () => {
    const bare = discordAdapter.parse(signed({ ...command, data: { ...command.data, options: [] } }), config);
    expect(bare).toMatchObject({ kind: 'immediate', body: { type: 4, data: { flags: 64 } } });
    expect(bare).not.toHaveProperty('then');
    expect(discordAdapter.parse(signed({ ...command, type: 3, data: { custom_id: 'x', component_type: 2 } }), config)).toEqual({
      kind: 'immediate',
      status: 200,
      body: { type: 6 },
    });
  });

  it('follows up on the interaction webhook without the bot token, splitting at 2000 characters', () => {
    const text = 'z'.repeat(4500);
    const requests = discordAdapter.buildReplyRequests(config, { applicationId: config.applicationId, interactionToken: 'interaction-token-abc' }, text);
    expect(requests.length).toBe(3);
    for (const request of requests) {
      expect(request.url).toBe(`https://discord.com/api/v10/webhooks/${config.applicationId}/interaction-token-abc`);
      expect(JSON.stringify(request)).not.toContain(config.botToken);
      expect((request.body.content as string).length).toBeLessThanOrEqual(2000);
      expect(request.body.allowed_mentions).toEqual({ parse: [] });
    }
    expect(requests.map((request) => request.body.content).join('')).toBe(text);
  });
});
