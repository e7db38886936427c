import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingWorker } from './support/recording-worker.js';
import { channelSettings, discordKeys, searchKey, slackHeaders, startChannelsStack, type ChannelsStack } from './support/channels-stack.js';

let stack: ChannelsStack;
let account: { accountId: string; secret: string };
let settings: ReturnType<typeof channelSettings>;
let nextId = 1;

const telegramHeaders = { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'telegram-secret-token-0123' };
const telegram = (agentId: string, text: string, chatId = 42) =>
  stack.webhook(
    { accountId: account.accountId, agentId, provider: 'telegram' },
    JSON.stringify({ update_id: nextId++, message: { message_id: 1, from: { id: 7, is_bot: false }, chat: { id: chatId }, text } }),
    telegramHeaders,
  );
const telegramTexts = () => stack.apis.received('telegram').map((request) => (request.body as { text: string }).text);

beforeEach(async () => {
  stack = await startChannelsStack();
  account = await stack.createAccount('channel-turns');
  settings = channelSettings(stack.apis, discordKeys().publicKeyHex);
});

afterEach(async () => {
  await stack.close();
});

describe('channel turns', () => {
  it('a tool that needs approval is denied, the model is told, and the chat sees which tool needed it', async () => {
    await stack.putAgent(account.secret, 'careful', {
      provider: stack.provider(),
      tools: { alphaSearch: { apiKey: searchKey, needsApproval: true } },
      channels: { telegram: settings.telegram },
    });
    expect((await telegram('careful', 'search: x')).status).toBe(200);
    const received = await stack.apis.waitFor('telegram', 2, 10_000);
    const [notice, answer] = received.map((request) => (request.body as { text: string }).text);
    expect(notice).toBe('The tool "alphaSearch" needs an approval, which cannot be given from this chat, so it was not run.');
    // The fixture model echoes the tool result it was given: the denial reason.
    expect(answer).toContain('alphaSearch');
    expect(answer).toContain('approvals cannot be given from a chat channel');
    expect(stack.search.requests().length).toBe(0);
    const conversation = await stack.core.conversations.find(account.accountId, 'careful', 'telegram:42');
    expect(conversation?.approvals.every((approval) => approval.status === 'denied')).toBe(true);
  });

  it('an external-dispatch continuation replies in the same Slack thread', async () => {
    const worker = await startRecordingWorker();
    try {
      await stack.putAgent(account.secret, 'dispatcher', {
        provider: stack.provider(),
        tools: {
          test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: account.secret, workerUrl: worker.dispatchUrl },
        },
        channels: { slack: settings.slack },
      });
      const body = JSON.stringify({
        type: 'event_callback',
        event_id: 'EvDispatch1',
        event: { type: 'message', channel_type: 'im', user: 'U7', text: 'call test_external_async {"task":"report"}', channel: 'D42', ts: '1700000100.000200', thread_ts: '1700000000.000100' },
      });
      const response = await stack.webhook({ accountId: account.accountId, agentId: 'dispatcher', provider: 'slack' }, body, slackHeaders('slack-signing-secret-0123', body));
      expect(response.status).toBe(200);
      for (let attempt = 0; attempt < 200 && worker.dispatches.length === 0; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(worker.dispatches).toHaveLength(1);
      await stack.idle();
      // The first turn ends waiting for the worker; what the model wrote meanwhile is posted.
      const interim = stack.apis.received('slack').map((request) => request.body as { text: string; thread_ts: string });
      expect(interim).toHaveLength(1);
      expect(interim[0]).toMatchObject({ thread_ts: '1700000000.000100', text: expect.stringContaining('"status":"processing"') });

      const completion = await worker.complete(worker.dispatches[0]!, { status: 'completed', response: { summary: 'all green' } });
      expect(completion.status).toBe(202);
      const reply = (await stack.apis.waitFor('slack', 2, 10_000))[1];
      expect(reply?.body).toMatchObject({ channel: 'D42', thread_ts: '1700000000.000100' });
      expect((reply?.body as { text: string }).text).toContain('all green');
      expect(reply?.headers.authorization).toBe('Bearer xoxb-slack-bot-token-0123');
    } finally {
      await worker.close();
    }
  });

  it('a long reply is split at the provider limit and the pieces rejoin to the whole text', async () => {
    await stack.putAgent(account.secret, 'talker', { provider: stack.provider(), channels: { zalo: settings.zalo } });
    const body = JSON.stringify({ event_name: 'message.text.received', message: { message_id: 'long-1', from: { id: 'u-1' }, chat: { id: 'chat-1' }, text: 'long: 700' } });
    const response = await stack.webhook({ accountId: account.accountId, agentId: 'talker', provider: 'zalo' }, body, {
      'content-type': 'application/json',
      'x-bot-api-secret-token': 'zalo-secret-token-0123',
    });
    expect(response.status).toBe(200);
    await stack.apis.waitFor('zalo', 1, 10_000);
    await stack.idle();
    const pieces = stack.apis.received('zalo').map((request) => (request.body as { text: string; chat_id: string }));
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      expect(piece.text.length).toBeLessThanOrEqual(2000);
      expect(piece.chat_id).toBe('chat-1');
    }
    const whole = pieces.map((piece) => piece.text).join('');
    expect(whole.split(' ')).toHaveLength(700);
  });

  it('a failed turn sends a short apology; the delivery is recorded as failed', async () => {
    await stack.putAgent(account.secret, 'flaky', { provider: stack.provider(), channels: { telegram: settings.telegram } });
    expect((await telegram('flaky', 'fail: 500')).status).toBe(200);
    await stack.apis.waitFor('telegram', 1, 10_000);
    await stack.idle();
    expect(telegramTexts()).toEqual(['Sorry, something went wrong while answering. Please try again in a moment.']);
    const [delivery] = await stack.core.channels.deliveries.all();
    expect(delivery).toMatchObject({ provider: 'telegram', status: 'failed' });
  });

  it('a turn that cannot start (no model configured) also gets the apology', async () => {
    await stack.putAgent(account.secret, 'modelless', { channels: { telegram: settings.telegram } });
    expect((await telegram('modelless', 'hello')).status).toBe(200);
    await stack.apis.waitFor('telegram', 1, 10_000);
    expect(telegramTexts()).toEqual(['Sorry, something went wrong while answering. Please try again in a moment.']);
  });

  it('a failed send is logged without the URL or the bot token', async () => {
    await stack.putAgent(account.secret, 'lost', {
      provider: stack.provider(),
      channels: { telegram: { ...settings.telegram, apiBaseUrl: `${stack.apis.baseURL('telegram')}/nowhere` } },
    });
    expect((await telegram('lost', 'hello')).status).toBe(200);
    await stack.apis.waitFor('telegram', 1, 10_000);
    await stack.idle();
    const refused = stack.logs.find((line) => line.message === 'channel API refused the reply');
    expect(refused?.fields).toMatchObject({ provider: 'telegram', status: 404 });
    const everything = JSON.stringify(stack.logs);
    expect(everything).not.toContain('telegram-bot-token');
    expect(everything).not.toContain('/sendMessage');
    expect((await stack.core.channels.deliveries.all())[0]).toMatchObject({ status: 'failed', error: 'reply not sent' });
  });

  it('a delivery acknowledged but not processed before a restart is processed once after it', async () => {
    await stack.putAgent(account.secret, 'durable', { provider: stack.provider(), channels: { telegram: settings.telegram } });
    // What a process that died right after acknowledging leaves behind.
    const claimed = await stack.core.channels.deliveries.claim({
      accountId: account.accountId,
      agentId: 'durable',
      provider: 'telegram',
      deliveryId: '9001',
      conversationId: '77',
      text: 'still there?',
      sender: '7',
      replyTarget: { chatId: 77 },
      status: 'accepted',
      acceptedAt: new Date().toISOString(),
    });
    expect(claimed).toBe(true);
    await stack.restart();
    const [reply] = await stack.apis.waitFor('telegram', 1, 10_000);
    expect(reply?.body).toMatchObject({ chat_id: 77, text: 'Echo: still there?' });
    await stack.idle();
    expect((await stack.core.channels.deliveries.all())[0]).toMatchObject({ deliveryId: '9001', status: 'done' });
    // The retry of that delivery, arriving after the restart, runs nothing.
    const calls = stack.model.callCount();
    const retry = await stack.webhook(
      { accountId: account.accountId, agentId: 'durable', provider: 'telegram' },
      JSON.stringify({ update_id: 9001, message: { message_id: 1, from: { id: 7, is_bot: false }, chat: { id: 77 }, text: 'still there?' } }),
      telegramHeaders,
    );
    expect(retry.status).toBe(200);
    await stack.idle();
    expect(stack.model.callCount()).toBe(calls);
    expect(stack.apis.received('telegram')).toHaveLength(1);
  });

  it('each chat is its own conversation, keyed <provider>:<chat id>', async () => {
    await stack.putAgent(account.secret, 'rooms', { provider: stack.provider(), channels: { telegram: settings.telegram } });
    await telegram('rooms', 'first room', 1);
    await telegram('rooms', 'second room', 2);
    await stack.apis.waitFor('telegram', 2, 10_000);
    await stack.idle();
    const first = await stack.core.conversations.find(account.accountId, 'rooms', 'telegram:1');
    const second = await stack.core.conversations.find(account.accountId, 'rooms', 'telegram:2');
    expect(first?.messages[0]?.message).toEqual({ role: 'user', content: 'first room' });
    expect(second?.messages[0]?.message).toEqual({ role: 'user', content: 'second room' });
  });
});
