import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelSettings, discordKeys, startChannelsStack, type ChannelsStack } from './support/channels-stack.js';
import { waitUntil } from './support/wait-until.js';

/** The user texts one Responses API request sent to the model, in order. */
const userTextsOf = (body: unknown): string[] =>
  ((body as { input: { role?: string; content?: unknown }[] }).input ?? [])
    .filter((item) => item.role === 'user')
    .map((item) => (typeof item.content === 'string' ? item.content : ((item.content ?? []) as { text?: string }[]).map((part) => part.text ?? '').join('')));

describe('busy conversations through a channel webhook', () => {
  let stack: ChannelsStack;
  let account: { accountId: string; secret: string };
  let updateId = 1;
  const telegram = (agentId: string, text: string, chatId: number) =>
    stack.webhook(
      { accountId: account.accountId, agentId, provider: 'telegram' },
      JSON.stringify({ update_id: updateId++, message: { message_id: updateId, from: { id: 7, is_bot: false }, chat: { id: chatId }, text } }),
      { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'telegram-secret-token-0123' },
    );
  const runningOn = (agentId: string, chatId: number) => () => stack.core.runningTurns.findRunning({ accountId: account.accountId, agentId, conversationKey: `telegram:${chatId}` });

  beforeAll(async () => {
    stack = await startChannelsStack();
    account = await stack.createAccount('busy-channels');
    const settings = channelSettings(stack.apis, discordKeys().publicKeyHex);
    await stack.putAgent(account.secret, 'chatty', { provider: stack.provider(), channels: { telegram: settings.telegram } });
    await stack.putAgent(account.secret, 'strict', { provider: stack.provider(), channels: { telegram: settings.telegram }, busy: 'reject' });
    stack.model.setOptions({ chunkDelayMs: 20 });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('collect (the channel default): a burst of lines sent during a run is one question, answered by one next turn', async () => {
    const before = stack.model.callCount();
    expect((await telegram('chatty', 'long: 100', 51)).status).toBe(200);
    await waitUntil('the first turn to run', runningOn('chatty', 51));
    expect((await telegram('chatty', 'second', 51)).status).toBe(200);
    expect((await telegram('chatty', 'third', 51)).status).toBe(200);
    await stack.idle();
    const calls = stack.model.calls().slice(before);
    expect(calls).toHaveLength(2);
    expect(userTextsOf(calls[1]!.body)).toEqual(['long: 100', 'second', 'third']);
    // One reply per turn: the first answer, then one answer to both lines.
    const replies = stack.apis.received('telegram').filter((request) => (request.body as { chat_id: unknown }).chat_id === 51);
    expect(replies).toHaveLength(2);
    const stored = await stack.core.conversations.find(account.accountId, 'chatty', 'telegram:51');
    expect(stored?.messages.map((message) => message.message.role)).toEqual(['user', 'assistant', 'user', 'user', 'assistant']);
  });

  it('reject: the line sent during a run is not run, and the chat is told', async () => {
    const before = stack.model.callCount();
    expect((await telegram('strict', 'long: 100', 52)).status).toBe(200);
    await waitUntil('the first turn to run', runningOn('strict', 52));
    expect((await telegram('strict', 'second', 52)).status).toBe(200);
    await stack.idle();
    expect(stack.model.calls().slice(before)).toHaveLength(1);
    const texts = stack.apis
      .received('telegram')
      .filter((request) => (request.body as { chat_id: unknown }).chat_id === 52)
      .map((request) => (request.body as { text: string }).text);
    expect(texts).toHaveLength(2);
    expect(texts.some((text) => text.includes('still answering your previous message'))).toBe(true);
  });
});
