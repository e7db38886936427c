import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveProfile, profilesPath } from '../cli/profiles.js';
import { runInProcess } from '../cli/test-support/run-in-process.js';
import { createTestContext, type TestContext } from '../cli/test-support/test-context.js';
import { startChannelsStack, type ChannelsStack } from './support/channels-stack.js';

let stack: ChannelsStack;
let account: { accountId: string; secret: string };

async function cli(args: string[], stdin?: string): Promise<TestContext> {
  const context = await createTestContext({ stdin });
  await saveProfile(profilesPath(context.env, context.homeDir), 'default', {
    accountUrl: stack.accountUrl,
    agentUrl: stack.agentUrl,
    accountId: account.accountId,
    username: 'cli-channels',
    secret: account.secret,
  });
  await runInProcess(context, args);
  return context;
}

beforeAll(async () => {
  stack = await startChannelsStack();
  account = await stack.createAccount('cli-channels');
  await stack.putAgent(account.secret, 'helper', { provider: stack.provider() });
});

afterAll(async () => {
  await stack.close();
});

describe('harness channels', () => {
  it('set reads secrets from stdin, stores them, and prints the exact webhook URL, which then works', async () => {
    const context = await cli(
      ['channels', 'set', 'helper', 'telegram', '--secret-stdin', 'botToken', '--secret-stdin', 'secretToken', '--option', `apiBaseUrl=${stack.apis.baseURL('telegram')}`],
      '123456:cli-bot-token-abc\ncli-secret-token-0123\n',
    );
    const url = `${stack.agentUrl}/webhooks/${account.accountId}/helper/telegram`;
    expect(context.output()).toContain(`Webhook URL to register with telegram:\n  ${url}\n`);
    expect(context.output()).not.toContain('cli-bot-token');
    const stored = await stack.core.agents.load(account.accountId, 'helper');
    expect(stored.config.channels?.telegram).toMatchObject({ botToken: '123456:cli-bot-token-abc', secretToken: 'cli-secret-token-0123' });

    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'cli-secret-token-0123' },
      body: JSON.stringify({ update_id: 1, message: { message_id: 1, from: { id: 7, is_bot: false }, chat: { id: 5 }, text: 'from the cli' } }),
    });
    expect(response.status).toBe(200);
    const [reply] = await stack.apis.waitFor('telegram', 1, 10_000);
    expect(reply?.path).toBe('/bot123456:cli-bot-token-abc/sendMessage');
    expect(reply?.body).toMatchObject({ chat_id: 5, text: 'Echo: from the cli' });
  });

  it('set for Pancake generates a verifyToken when none is stored and prints the URL that carries it', async () => {
    const context = await cli(['channels', 'set', 'helper', 'pancake', '--option', 'pageId=1234567', '--secret-stdin', 'accessToken', '--option', `apiBaseUrl=${stack.apis.baseURL('pancake')}`, '--json'], 'pancake-access-token-0123\n');
    const printed = JSON.parse(context.output()) as { webhookUrl: string; verifyTokenGenerated: boolean; settings: Record<string, unknown> };
    expect(printed.verifyTokenGenerated).toBe(true);
    expect(printed.settings.pageId).toBe('1234567');
    const stored = (await stack.core.agents.load(account.accountId, 'helper')).config.channels?.pancake as { verifyToken: string };
    expect(printed.webhookUrl).toBe(`${stack.agentUrl}/webhooks/${account.accountId}/helper/pancake?token=${stored.verifyToken}`);

    const body = JSON.stringify({
      page_id: '1234567',
      event_type: 'messaging',
      data: { conversation: { id: 'conv-1', type: 'INBOX', from: { id: 'customer-1' } }, message: { id: 'm-1', message: 'hi shop', from: { id: 'customer-1' } } },
    });
    expect((await fetch(printed.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(200);
    const [reply] = await stack.apis.waitFor('pancake', 1, 10_000);
    expect(reply?.body).toEqual({ action: 'reply_inbox', message: 'Echo: hi shop' });
    expect((await fetch(printed.webhookUrl.replace(/token=.*$/, 'token=guess'), { method: 'POST', body })).status).toBe(401);
  });

  it('list shows providers, redacted secrets and webhook URLs; remove makes the webhook a 404', async () => {
    const listed = await cli(['channels', 'list', 'helper']);
    expect(listed.output()).toMatch(/^PROVIDER\s+SETTINGS\s+WEBHOOK URL\n/);
    expect(listed.output()).toContain('botToken=set (…-abc)');
    expect(listed.output()).toContain(`/webhooks/${account.accountId}/helper/pancake?token=<verifyToken>`);
    expect(listed.output()).not.toContain('cli-secret-token-0123');

    const removed = await cli(['channels', 'remove', 'helper', 'telegram']);
    expect(removed.output()).toBe('Channel telegram removed from agent helper; its webhooks now get 404.\n');
    const response = await fetch(`${stack.agentUrl}/webhooks/${account.accountId}/helper/telegram`, {
      method: 'POST',
      headers: { 'x-telegram-bot-api-secret-token': 'cli-secret-token-0123' },
      body: '{}',
    });
    expect(response.status).toBe(404);
    const json = JSON.parse((await cli(['channels', 'list', 'helper', '--json'])).output()) as { channels: { provider: string }[] };
    expect(json.channels.map((channel) => channel.provider)).toEqual(['pancake']);
  });

  it('refuses a secret on the command line, an unknown provider, and a missing stdin line', async () => {
    await expect(cli(['channels', 'set', 'helper', 'telegram', '--option', 'botToken=oops'])).rejects.toThrow('botToken is a secret: pass it with --secret-stdin botToken');
    await expect(cli(['channels', 'set', 'helper', 'myspace', '--option', 'a=b'])).rejects.toThrow('unknown channel provider "myspace"');
    await expect(cli(['channels', 'set', 'helper', 'zalo', '--secret-stdin', 'secretToken', '--secret-stdin', 'accessToken'], 'only-one\n')).rejects.toThrow(
      '--secret-stdin accessToken: line 2 of stdin is empty',
    );
    await expect(cli(['channels', 'set', 'helper', 'telegram', '--secret-stdin', 'botToken'], 'x\n')).rejects.toThrow('config.channels.telegram.secretToken is required');
  });
});
