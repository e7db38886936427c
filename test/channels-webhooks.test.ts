import type { KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeChannelProvider, RecordedRequest } from '../fixtures/channel-apis/fake-channel-apis.js';
import {
  channelSettings,
  discordHeaders,
  discordKeys,
  githubSignature,
  slackHeaders,
  startChannelsStack,
  unixNow,
  type ChannelsStack,
} from './support/channels-stack.js';

interface SignedRequest {
  body: string;
  headers: Record<string, string>;
  query?: string;
}

interface ProviderCase {
  provider: FakeChannelProvider;
  /** A message delivery with this text and delivery id, signed correctly. */
  valid(text: string, id: number): SignedRequest;
  /** The same, signed with the wrong secret. */
  badSignature(text: string, id: number): SignedRequest;
  /** The same, without the header (or query parameter) that carries the proof. */
  missingProof(text: string, id: number): SignedRequest;
  /** Signed correctly, but more than five minutes old (Slack and Discord). */
  stale?(text: string, id: number): SignedRequest;
  /**
   * The same signed request again, with every header outside the signature changed the way
   * a provider's retry, a redelivery or an attacker replaying a captured request may change it.
   */
  resend(request: SignedRequest): SignedRequest;
  /** The text the fake API received. */
  replyText(request: RecordedRequest): string;
  /** What the webhook answers a message with. */
  acknowledgement: unknown;
}

let stack: ChannelsStack;
let account: { accountId: string; secret: string };
let discordPrivateKey: KeyObject;
let settings: ReturnType<typeof channelSettings>;
const json = { 'content-type': 'application/json' };

const telegramUpdate = (text: string, id: number) => JSON.stringify({ update_id: id, message: { message_id: id, from: { id: 7, is_bot: false }, chat: { id: 4200 + id }, text } });
const githubComment = (text: string, id: number) =>
  JSON.stringify({
    action: 'created',
    issue: { id: 1347, number: 17, title: 'Build fails', body: null, user: { login: 'ada', type: 'User' } },
    comment: { id, body: text, user: { login: 'ada', type: 'User' }, created_at: new Date().toISOString() },
    repository: { id: 1296269, name: 'widgets', owner: { login: 'octo-org' } },
    sender: { login: 'ada', type: 'User' },
  });
const slackEvent = (text: string, id: number) =>
  JSON.stringify({
    type: 'event_callback',
    event_id: `Ev${id}`,
    authorizations: [{ user_id: 'UBOT' }],
    event: { type: 'app_mention', user: 'U7', text, channel: 'C42', ts: `1700000000.${id}` },
  });
const discordCommand = (text: string, id: number) =>
  JSON.stringify({
    id: `interaction-${id}`,
    application_id: 'app-1',
    type: 2,
    token: `interaction-token-${id}`,
    channel_id: 'channel-9',
    member: { user: { id: 'user-3' } },
    data: { name: 'ask', options: [{ type: 3, name: 'prompt', value: text }] },
  });
const pancakeMessage = (text: string, id: number) =>
  JSON.stringify({
    page_id: 'page-1',
    event_type: 'messaging',
    data: { conversation: { id: `conv-${id}`, type: 'INBOX', from: { id: 'customer-1' } }, message: { id: `m-${id}`, message: text, from: { id: 'customer-1' } } },
  });
const zaloMessage = (text: string, id: number) =>
  JSON.stringify({ ok: true, result: { event_name: 'message.text.received', message: { message_id: `z-${id}`, from: { id: 'u-1' }, chat: { id: `chat-${id}` }, text } } });

const cases: ProviderCase[] = [
  {
    provider: 'telegram',
    valid: (text, id) => ({ body: telegramUpdate(text, id), headers: { ...json, 'x-telegram-bot-api-secret-token': 'telegram-secret-token-0123' } }),
    badSignature: (text, id) => ({ body: telegramUpdate(text, id), headers: { ...json, 'x-telegram-bot-api-secret-token': 'not-the-token' } }),
    missingProof: (text, id) => ({ body: telegramUpdate(text, id), headers: json }),
    resend: (request) => ({ ...request, headers: { ...request.headers, 'x-request-id': 'resent' } }),
    replyText: (request) => (request.body as { text: string }).text,
    acknowledgement: { ok: true },
  },
  {
    provider: 'github',
    valid: (text, id) => {
      const body = githubComment(text, id);
      return { body, headers: { ...json, 'x-github-event': 'issue_comment', 'x-github-delivery': `delivery-${id}`, 'x-hub-signature-256': githubSignature('github-webhook-secret-0123', body) } };
    },
    badSignature: (text, id) => {
      const body = githubComment(text, id);
      return { body, headers: { ...json, 'x-github-event': 'issue_comment', 'x-github-delivery': `delivery-${id}`, 'x-hub-signature-256': githubSignature('wrong-secret', body) } };
    },
    missingProof: (text, id) => ({ body: githubComment(text, id), headers: { ...json, 'x-github-event': 'issue_comment', 'x-github-delivery': `delivery-${id}` } }),
    resend: (request) => ({ ...request, headers: { ...request.headers, 'x-github-delivery': `replayed-${Math.random()}` } }),
    replyText: (request) => (request.body as { body: string }).body.replace('\n\n<!-- harness-reply -->', ''),
    acknowledgement: { ok: true },
  },
  {
    provider: 'slack',
    valid: (text, id) => ({ body: slackEvent(text, id), headers: slackHeaders('slack-signing-secret-0123', slackEvent(text, id)) }),
    badSignature: (text, id) => ({ body: slackEvent(text, id), headers: slackHeaders('wrong-secret', slackEvent(text, id)) }),
    missingProof: (text, id) => {
      const { 'x-slack-signature': _signature, ...headers } = slackHeaders('slack-signing-secret-0123', slackEvent(text, id));
      return { body: slackEvent(text, id), headers };
    },
    stale: (text, id) => ({ body: slackEvent(text, id), headers: slackHeaders('slack-signing-secret-0123', slackEvent(text, id), unixNow() - 301) }),
    resend: (request) => ({ ...request, headers: { ...request.headers, 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' } }),
    replyText: (request) => (request.body as { text: string }).text,
    acknowledgement: { ok: true },
  },
  {
    provider: 'discord',
    valid: (text, id) => ({ body: discordCommand(text, id), headers: discordHeaders(discordPrivateKey, discordCommand(text, id)) }),
    badSignature: (text, id) => ({ body: discordCommand(text, id), headers: discordHeaders(discordKeys().privateKey, discordCommand(text, id)) }),
    missingProof: (text, id) => {
      const { 'x-signature-ed25519': _signature, ...headers } = discordHeaders(discordPrivateKey, discordCommand(text, id));
      return { body: discordCommand(text, id), headers };
    },
    stale: (text, id) => ({ body: discordCommand(text, id), headers: discordHeaders(discordPrivateKey, discordCommand(text, id), unixNow() - 301) }),
    resend: (request) => ({ ...request, headers: { ...request.headers, 'x-request-id': 'resent' } }),
    replyText: (request) => (request.body as { content: string }).content,
    acknowledgement: { type: 5 },
  },
  {
    provider: 'pancake',
    valid: (text, id) => ({ body: pancakeMessage(text, id), headers: json, query: '?token=pancake-verify-token-0123' }),
    badSignature: (text, id) => ({ body: pancakeMessage(text, id), headers: json, query: '?token=guessed' }),
    missingProof: (text, id) => ({ body: pancakeMessage(text, id), headers: json }),
    resend: (request) => ({ ...request, query: `${request.query ?? ''}&retry=1`, headers: { ...request.headers, 'x-request-id': 'resent' } }),
    replyText: (request) => (request.body as { message: string }).message,
    acknowledgement: { ok: true },
  },
  {
    provider: 'zalo',
    valid: (text, id) => ({ body: zaloMessage(text, id), headers: { ...json, 'x-bot-api-secret-token': 'zalo-secret-token-0123' } }),
    badSignature: (text, id) => ({ body: zaloMessage(text, id), headers: { ...json, 'x-bot-api-secret-token': 'not-the-token' } }),
    missingProof: (text, id) => ({ body: zaloMessage(text, id), headers: json }),
    resend: (request) => ({ ...request, headers: { ...request.headers, 'x-request-id': 'resent' } }),
    replyText: (request) => (request.body as { text: string }).text,
    acknowledgement: { ok: true },
  },
];

let nextId = 1;
const send = (provider: string, request: SignedRequest, agentId = 'helper') =>
  stack.webhook({ accountId: account.accountId, agentId, provider, ...(request.query ? { query: request.query } : {}) }, request.body, request.headers);

beforeAll(async () => {
  stack = await startChannelsStack();
  account = await stack.createAccount('channeler');
  const keys = discordKeys();
  discordPrivateKey = keys.privateKey;
  settings = channelSettings(stack.apis, keys.publicKeyHex);
  const response = await stack.putAgent(account.secret, 'helper', { provider: stack.provider(), channels: settings });
  expect(response.status).toBe(201);
});

afterAll(async () => {
  await stack.close();
});

describe.each(cases)('$provider webhook', (providerCase) => {
  const { provider } = providerCase;

  it('a valid message is acknowledged at once and answered through the provider API', async () => {
    const id = nextId++;
    const response = await send(provider, providerCase.valid(`hello ${provider}`, id));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(providerCase.acknowledgement);
    const [reply] = await stack.apis.waitFor(provider, 1, 10_000);
    expect(reply?.matched).toBe(true);
    expect(providerCase.replyText(reply!)).toBe(`Echo: hello ${provider}`);
  });

  it('a bad signature, a missing header and (where signed in time) a stale timestamp give 401 and run nothing', async () => {
    await stack.idle();
    const calls = stack.model.callCount();
    const sent = stack.apis.received(provider).length;
    const attempts = [providerCase.badSignature, providerCase.missingProof, ...(providerCase.stale ? [providerCase.stale] : [])];
    for (const attempt of attempts) {
      const response = await send(provider, attempt('do not run', nextId++));
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: { code: 'unauthorized', message: 'The webhook request could not be verified.' } });
    }
    await stack.idle();
    expect(stack.model.callCount()).toBe(calls);
    expect(stack.apis.received(provider).length).toBe(sent);
    const stored = await stack.core.channels.deliveries.all();
    expect(stored.filter((delivery) => delivery.text === 'do not run')).toEqual([]);
  });

  it('a retried delivery runs once', async () => {
    await stack.idle();
    const calls = stack.model.callCount();
    const before = stack.apis.received(provider).length;
    const request = providerCase.valid(`once ${provider}`, nextId++);
    const first = await send(provider, request);
    const retry = await send(provider, request);
    expect([first.status, retry.status]).toEqual([200, 200]);
    await stack.apis.waitFor(provider, before + 1, 10_000);
    await stack.idle();
    expect(stack.model.callCount()).toBe(calls + 1);
    expect(stack.apis.received(provider).length).toBe(before + 1);
  });
});

describe.each(cases)('$provider replays', (providerCase) => {
  const { provider } = providerCase;

  it('the same verified body resent three times with new delivery headers runs one turn', async () => {
    await stack.idle();
    const calls = stack.model.callCount();
    const before = stack.apis.received(provider).length;
    const original = providerCase.valid(`replayed ${provider}`, nextId++);
    const responses = [await send(provider, original)];
    for (let replay = 0; replay < 3; replay += 1) responses.push(await send(provider, providerCase.resend(original)));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    await stack.apis.waitFor(provider, before + 1, 10_000);
    await stack.idle();
    expect(stack.model.callCount()).toBe(calls + 1);
    expect(stack.apis.received(provider).length).toBe(before + 1);
  });
});

describe('provider specifics', () => {
  it("GitHub's published example delivery is accepted, a changed byte is refused", async () => {
    await stack.putAgent(account.secret, 'vector', {
      provider: stack.provider(),
      channels: { github: { webhookSecret: "It's a Secret to Everybody", token: 'ghp_github-token-0123456789', apiBaseUrl: stack.apis.baseURL('github') } },
    });
    const headers = { ...json, 'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17' };
    const accepted = await send('github', { body: 'Hello, World!', headers }, 'vector');
    expect(accepted.status).toBe(200);
    const refused = await send('github', { body: 'Hello, World?', headers }, 'vector');
    expect(refused.status).toBe(401);
  });

  it("Slack's documented example request verifies at its own time, as a form body, and not five minutes later", async () => {
    await stack.putAgent(account.secret, 'slackdoc', {
      provider: stack.provider(),
      channels: { slack: { signingSecret: '8f742231b10e8888abcd99yyyzzz85a5', botToken: 'xoxb-slack-bot-token-0123', apiBaseUrl: stack.apis.baseURL('slack') } },
    });
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const headers = {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
      'x-slack-request-timestamp': '1531420618',
    };
    const calls = stack.model.callCount();
    try {
      stack.setNow(new Date((1531420618 + 30) * 1000));
      const accepted = await send('slack', { body, headers }, 'slackdoc');
      expect(accepted.status).toBe(200);
      stack.setNow(new Date((1531420618 + 301) * 1000));
      expect((await send('slack', { body, headers }, 'slackdoc')).status).toBe(401);
    } finally {
      stack.setNow(undefined);
    }
    await stack.idle();
    // A slash command is not an Events API message: acknowledged, nothing runs.
    expect(stack.model.callCount()).toBe(calls);
  });

  it("Slack's url_verification is answered with its challenge once verified", async () => {
    const body = JSON.stringify({ type: 'url_verification', token: 'legacy', challenge: 'challenge-3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' });
    const response = await send('slack', { body, headers: slackHeaders('slack-signing-secret-0123', body) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ challenge: 'challenge-3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' });
    expect((await send('slack', { body, headers: slackHeaders('wrong', body) })).status).toBe(401);
  });

  it('Discord PING is answered with PONG; a slash command is deferred and answered by a follow-up on the interaction token', async () => {
    const ping = JSON.stringify({ id: 'ping-1', application_id: 'app-1', type: 1, token: 'ping-token' });
    const pong = await send('discord', { body: ping, headers: discordHeaders(discordPrivateKey, ping) });
    expect(pong.status).toBe(200);
    expect(await pong.json()).toEqual({ type: 1 });

    const before = stack.apis.received('discord').length;
    const id = nextId++;
    const command = discordCommand('follow me up', id);
    const deferred = await send('discord', { body: command, headers: discordHeaders(discordPrivateKey, command) });
    expect(await deferred.json()).toEqual({ type: 5 });
    const received = await stack.apis.waitFor('discord', before + 1, 10_000);
    const followUp = received.at(-1)!;
    expect(followUp.path).toBe(`/webhooks/app-1/interaction-token-${id}`);
    expect(followUp.body).toEqual({ content: 'Echo: follow me up', allowed_mentions: { parse: [] } });
    expect(followUp.headers.authorization).toBeUndefined();
  });

  it('ignored events (a bot, an edit, a non-message) get a fast 200 and run nothing', async () => {
    await stack.idle();
    const calls = stack.model.callCount();
    const botUpdate = JSON.stringify({ update_id: nextId++, message: { message_id: 1, from: { id: 9, is_bot: true }, chat: { id: 1 }, text: 'beep' } });
    const edited = JSON.stringify({ update_id: nextId++, edited_message: { message_id: 1, chat: { id: 1 }, text: 'edited' } });
    for (const body of [botUpdate, edited]) {
      const response = await send('telegram', { body, headers: { ...json, 'x-telegram-bot-api-secret-token': 'telegram-secret-token-0123' } });
      expect(response.status).toBe(200);
    }
    const ping = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
    const githubPing = await send('github', { body: ping, headers: { ...json, 'x-github-event': 'ping', 'x-github-delivery': 'ping-1', 'x-hub-signature-256': githubSignature('github-webhook-secret-0123', ping) } });
    expect(githubPing.status).toBe(200);
    await stack.idle();
    expect(stack.model.callCount()).toBe(calls);
  });

  it('an unknown provider, account or agent, and a provider the agent has not configured, all give the same 404', async () => {
    await stack.putAgent(account.secret, 'bare', { provider: stack.provider() });
    const request = cases[0]!.valid('nobody home', nextId++);
    const addresses = [
      { accountId: account.accountId, agentId: 'helper', provider: 'myspace' },
      { accountId: 'acc_does_not_exist', agentId: 'helper', provider: 'telegram' },
      { accountId: account.accountId, agentId: 'nobody', provider: 'telegram' },
      { accountId: account.accountId, agentId: 'bare', provider: 'telegram' },
      { accountId: account.accountId, agentId: '..%2F..', provider: 'telegram' },
    ];
    const answers = await Promise.all(
      addresses.map(async (address) => {
        const response = await stack.webhook(address, request.body, request.headers);
        return { status: response.status, body: await response.text() };
      }),
    );
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(answers[0]).toEqual({ status: 404, body: JSON.stringify({ error: { code: 'not_found', message: 'No webhook at this address.' } }) });
  });

  it('a body with no content type, or any content type, is verified on its raw bytes', async () => {
    const before = stack.apis.received('telegram').length;
    const secretHeader = { 'x-telegram-bot-api-secret-token': 'telegram-secret-token-0123' };
    const plain = await send('telegram', { body: telegramUpdate('as text', nextId++), headers: { 'content-type': 'text/plain', ...secretHeader } });
    expect(plain.status).toBe(200);
    const untyped = await stack.webhook({ accountId: account.accountId, agentId: 'helper', provider: 'telegram' }, Buffer.from(telegramUpdate('untyped', nextId++)), secretHeader);
    expect(untyped.status).toBe(200);
    const received = await stack.apis.waitFor('telegram', before + 2, 10_000);
    const texts = received.slice(before).map((request) => (request.body as { text: string }).text);
    expect(texts.sort()).toEqual(['Echo: as text', 'Echo: untyped']);
  });
});
