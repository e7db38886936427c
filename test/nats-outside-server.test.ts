import type { UIMessageChunk } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../cli/api-client.js';
import { createNatsChatSource } from '../cli/chat/nats-stream-source.js';
import { silentLogger } from '../server/core/logger.js';
import { connectNats } from '../server/nats/nats-connection.js';
import { natsAuthenticationOf } from '../server/nats/nats-protocol.js';
import { readNatsSettings } from '../server/nats/nats-settings.js';
import { chatSubject } from '../server/nats/nats-subjects.js';
import { finishStatus, startNatsStack, TestInbox, textOf, type NatsStack } from './support/nats-stack.js';
import { startPlainNatsCluster, type PlainNatsCluster } from './support/plain-nats-cluster.js';

/**
 * The service against a nats-server its operator started by hand (no operator JWTs, no
 * WebSocket): what `GET /accounts/me/nats` tells a client, whether the client gets in with it,
 * and turns over it, with and without JetStream.
 */
let servers: PlainNatsCluster | undefined;
let stack: NatsStack | undefined;

afterEach(async () => {
  await stack?.close();
  await servers?.stop();
  stack = undefined;
  servers = undefined;
});

describe('an outside nats-server started by its operator', () => {
  it('a cluster without JetStream: answers NATS turns, unstored, and says no credentials are needed', async () => {
    // On a cluster without JetStream its API requests are not refused, they time out: the
    // gateway must neither wait for them nor keep asking.
    servers = await startPlainNatsCluster({ size: 3, jetstream: false });
    // Bare host:port entries, as nats-server's own tools take them.
    stack = await startNatsStack({ nats: readNatsSettings({ NATS_URL: servers.urls.map((url) => url.replace('nats://', '')).join(',') }) });
    await stack.waitForNats();
    const account = await stack.createAccountWithEcho('plain-user');
    expect(account.nats).toMatchObject({ authentication: 'none', url: servers.urls.join(','), websocketUrl: null, user: null, password: null, jwt: null, creds: null });

    const connection = await connectNats({ url: account.nats.url!, ...natsAuthenticationOf(account.nats), inboxPrefix: account.nats.inboxPrefix, name: 'plain-client', logger: silentLogger });
    try {
      const inbox = new TestInbox(connection, account.nats.inboxPrefix);
      await inbox.request(chatSubject(account.accountId, 'echo'), account.secret, { conversationKey: 'no-jetstream', message: 'hello without jetstream' });
      const answer = await inbox.untilFinish();
      expect(finishStatus(answer)).toBe('completed');
      expect(textOf(answer)).toContain('hello without jetstream');
      // Nothing could be stored, so no chunk carries a replay sequence.
      expect(answer.every((message) => message.sequence === undefined)).toBe(true);
    } finally {
      await connection.close();
    }
  });

  it('with a token (given in NATS_URL): says the token is the operator’s, and a client with it chats and replays', async () => {
    const token = 'operator-token-0123456789';
    servers = await startPlainNatsCluster({ size: 1, token });
    stack = await startNatsStack({ nats: readNatsSettings({ NATS_URL: servers.urls[0]!.replace('nats://', `nats://${token}@`) }) });
    await stack.waitForNats();
    const account = await stack.createAccountWithEcho('token-user');
    expect(account.nats).toMatchObject({ authentication: 'token', url: servers.urls[0], user: null, password: null, jwt: null });
    expect(JSON.stringify(account.nats)).not.toContain(token);

    // Without the token the server refuses the client; with the operator's token it gets in.
    await expect(connectNats({ url: account.nats.url!, ...natsAuthenticationOf(account.nats), name: 'no-token', logger: silentLogger, timeoutMilliseconds: 3_000 })).rejects.toThrow(/authorization/i);
    const connection = await connectNats({ url: account.nats.url!, ...natsAuthenticationOf(account.nats, token), inboxPrefix: account.nats.inboxPrefix, name: 'token-client', logger: silentLogger });
    try {
      const inbox = new TestInbox(connection, account.nats.inboxPrefix);
      await inbox.request(chatSubject(account.accountId, 'echo'), account.secret, { conversationKey: 'with-token', message: 'hello with a token' });
      const answer = await inbox.untilFinish();
      expect(finishStatus(answer)).toBe('completed');
      expect(answer.every((message) => message.sequence !== undefined)).toBe(true);

      const replay = new TestInbox(connection, account.nats.inboxPrefix);
      await replay.request(`harness.v1.${account.accountId}.echo.replay`, account.secret, { conversationKey: 'with-token', afterSequence: 0 });
      const replayed = await replay.untilReplayEnd();
      expect(replayed.slice(0, -1)).toEqual(answer);
    } finally {
      await connection.close();
    }

    // `harness chat --transport nats` (over TCP: no WebSocket here) needs the operator's token, and says so.
    const accountService = createApiClient({ baseUrl: stack.accountUrl, serviceName: 'account', secret: account.secret });
    const withoutToken = createNatsChatSource({ accountService, agentId: 'echo', secret: account.secret });
    await expect(withoutToken.open({ conversationKey: 'cli', message: 'hello' })).rejects.toThrow(/NATS_TOKEN/);
    await withoutToken.close();
    const withToken = createNatsChatSource({ accountService, agentId: 'echo', secret: account.secret, natsToken: token });
    try {
      const chunks: UIMessageChunk[] = [];
      for await (const chunk of await withToken.open({ conversationKey: 'cli', message: 'hello from the cli' })) chunks.push(chunk);
      expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'completed' } });
      expect(chunks.map((chunk) => (chunk.type === 'text-delta' ? chunk.delta : '')).join('')).toContain('hello from the cli');
    } finally {
      await withToken.close();
    }
  });
});
