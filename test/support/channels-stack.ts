import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { startFakeChannelApis, type FakeChannelApis, type FakeChannelProvider } from '../../fixtures/channel-apis/fake-channel-apis.js';
import { startChatStack, type ChatStack, type ChatStackOptions } from './chat-stack.js';

export { modelKey, searchKey } from './chat-stack.js';

/**
 * Both services on loopback (real lowdb files), the fixture model and search service, and
 * the fake channel APIs. The core's clock can be moved (Slack's documented example is
 * signed in 2018); `restart()` rebuilds the services on the same data folder.
 */
export interface ChannelsStack extends Omit<ChatStack, 'putAgent' | 'provider'> {
  apis: FakeChannelApis;
  /** Pins the core's clock; `undefined` goes back to real time. */
  setNow(date: Date | undefined): void;
  putAgent(secret: string, agentId: string, config: Record<string, unknown>): Promise<Response>;
  provider(): Record<string, unknown>;
  /** POSTs the exact bytes to `/webhooks/{accountId}/{agentId}/{provider}{query}`. */
  webhook(path: { accountId: string; agentId: string; provider: string; query?: string }, body: string | Uint8Array, headers: Record<string, string>): Promise<Response>;
  /** Waits until the channel worker and the async worker have nothing queued or running. */
  idle(): Promise<void>;
}

/** The chat stack (both services, fixture model and search) plus the fake channel APIs and a movable clock. */
export async function startChannelsStack(options: Omit<ChatStackOptions, 'now'> = {}): Promise<ChannelsStack> {
  let pinned: Date | undefined;
  const chat = await startChatStack({ ...options, now: () => pinned ?? new Date() });
  const apis = await startFakeChannelApis();
  return Object.assign(Object.create(chat) as ChatStack, {
    apis,
    setNow: (date: Date | undefined) => {
      pinned = date;
    },
    close: async () => {
      await chat.close();
      await apis.close();
    },
    putAgent: (secret: string, agentId: string, config: Record<string, unknown>) =>
      fetch(`${chat.accountUrl}/accounts/me/agents/${agentId}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: JSON.stringify({ config }),
      }),
    provider: () => chat.provider('responses'),
    webhook: (path: { accountId: string; agentId: string; provider: string; query?: string }, body: string | Uint8Array, headers: Record<string, string>) =>
      fetch(`${chat.agentUrl}/webhooks/${path.accountId}/${path.agentId}/${path.provider}${path.query ?? ''}`, { method: 'POST', headers, body }),
    idle: async () => {
      for (let round = 0; round < 3; round += 1) {
        await chat.core.channels.worker.idle();
        await chat.core.asyncWorker.idle();
      }
    },
  }) as ChannelsStack;
}

export function channelSettings(apis: FakeChannelApis, discordPublicKey: string): Record<FakeChannelProvider, Record<string, unknown>> {
  return {
    telegram: { botToken: '123456:telegram-bot-token-abc', secretToken: 'telegram-secret-token-0123', apiBaseUrl: apis.baseURL('telegram') },
    github: { webhookSecret: 'github-webhook-secret-0123', token: 'ghp_github-token-0123456789', apiBaseUrl: apis.baseURL('github') },
    slack: { signingSecret: 'slack-signing-secret-0123', botToken: 'xoxb-slack-bot-token-0123', apiBaseUrl: apis.baseURL('slack') },
    discord: { publicKey: discordPublicKey, applicationId: 'app-1', botToken: 'discord-bot-token-0123456', apiBaseUrl: apis.baseURL('discord') },
    pancake: { pageId: 'page-1', accessToken: 'pancake-access-token-0123', verifyToken: 'pancake-verify-token-0123', apiBaseUrl: apis.baseURL('pancake') },
    zalo: { secretToken: 'zalo-secret-token-0123', accessToken: 'zalo-access-token-0123', apiBaseUrl: apis.baseURL('zalo') },
  };
}

/** An Ed25519 key pair made for the test, with the public key as Discord shows it (hex). */
export function discordKeys(): { privateKey: KeyObject; publicKeyHex: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return { privateKey, publicKeyHex: der.subarray(der.length - 32).toString('hex') };
}

export const unixNow = (): number => Math.floor(Date.now() / 1000);

export function githubSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function slackHeaders(secret: string, body: string, timestamp = unixNow()): Record<string, string> {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return { 'content-type': 'application/json', 'x-slack-signature': signature, 'x-slack-request-timestamp': String(timestamp) };
}

export function discordHeaders(privateKey: KeyObject, body: string, timestamp = unixNow()): Record<string, string> {
  const signature = sign(null, Buffer.from(`${timestamp}${body}`), privateKey).toString('hex');
  return { 'content-type': 'application/json', 'x-signature-ed25519': signature, 'x-signature-timestamp': String(timestamp) };
}
