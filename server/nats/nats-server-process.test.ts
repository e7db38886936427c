import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../core/logger.js';
import { accountNatsCredentials } from './account-nats-credentials.js';
import { issueAccountUser } from './nats-authority.js';
import { connectNats } from './nats-connection.js';
import { NatsServerStartError, startNatsServer, type EmbeddedNatsServer } from './nats-server-process.js';
import { makeTemporaryDataDir, nextServerError, randomSecret } from './test-support/nats-test-support.js';

const stageSecret = randomSecret();
const serviceToken = randomSecret();
const accountA = 'acc_alpha';
const accountB = 'acc_bravo';
const accountC = 'acc_charlie';

describe('the embedded nats-server', () => {
  let dataDir: Awaited<ReturnType<typeof makeTemporaryDataDir>>;
  let server: EmbeddedNatsServer;
  const connections: NatsConnection[] = [];

  async function connectService(url = server.url): Promise<NatsConnection> {
    const connection = await connectNats({ url, ...server.serviceCredentials, name: 'test-service', logger: silentLogger });
    connections.push(connection);
    return connection;
  }

  async function connectAccount(accountId: string, url = server.url): Promise<NatsConnection> {
    const credentials = accountNatsCredentials(stageSecret, accountId);
    const user = await issueAccountUser(server.authority, accountId);
    const connection = await connectNats({
      url,
      jwt: user.jwt,
      seed: user.seed,
      inboxPrefix: credentials.inboxPrefix,
      name: `test-${accountId}`,
      logger: silentLogger,
    });
    connections.push(connection);
    return connection;
  }

  beforeAll(async () => {
    dataDir = await makeTemporaryDataDir();
    server = await startNatsServer({ dataDir: dataDir.path, stageSecret, logger: silentLogger });
  });

  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
    await server?.stop();
    await dataDir?.remove();
  });

  it('listens on loopback URLs for TCP and WebSocket', () => {
    expect(server.url).toBe(`nats://127.0.0.1:${server.port}`);
    expect(server.websocketUrl).toBe(`ws://127.0.0.1:${server.websocketPort}`);
    expect(server.serviceCredentials.user).toBe('harness-service');
  });

  it('lets the service connect over TCP and over WebSocket, and both reach each other', async () => {
    const overTcp = await connectService(server.url);
    const overWebSocket = await connectService(server.websocketUrl);
    const received = new Promise<string>((resolve) => {
      overWebSocket.subscribe('harness.test.echo', { max: 1, callback: (_error, message) => resolve(message.string()) });
    });
    await overWebSocket.flush();
    overTcp.publish('harness.test.echo', 'over both transports');
    expect(await received).toBe('over both transports');
  });

  it('refuses a wrong service password, and a missing one', async () => {
    await expect(connectNats({ url: server.url, user: 'harness-service', password: 'wrong', name: 'intruder', logger: silentLogger })).rejects.toThrow(/Authorization Violation/);
    await expect(connectNats({ url: server.url, name: 'anonymous', logger: silentLogger })).rejects.toThrow(/Authorization Violation/);
    await expect(connectNats({ url: server.url, token: serviceToken, name: 'token-only', logger: silentLogger })).rejects.toThrow(/Authorization Violation/);
  });

  it('lets an account publish to its own chat subject and get the reply in its own inbox, over TCP and WebSocket', async () => {
    const service = await connectService();
    const subject = accountNatsCredentials(stageSecret, accountA).chatSubject('agent-1');
    const replySubjects: string[] = [];
    service.subscribe(subject, {
      callback: (_error, message: Msg) => {
        replySubjects.push(message.reply ?? '');
        message.respond(`answer to ${message.string()}`);
      },
    });
    await service.flush();
    for (const url of [server.url, server.websocketUrl]) {
      const account = await connectAccount(accountA, url);
      const reply = await account.request(subject, 'hello', { timeout: 5_000 });
      expect(reply.string()).toBe('answer to hello');
    }
    expect(replySubjects.every((reply) => reply.startsWith(`_INBOX.${accountA}.`))).toBe(true);
  });

  it("refuses account B a subscription to A's chat subject", async () => {
    const accountBConnection = await connectAccount(accountB);
    const violation = nextServerError(accountBConnection);
    const subscription = accountBConnection.subscribe(accountNatsCredentials(stageSecret, accountA).chatSubject('agent-1'));
    expect(await violation).toMatch(/Permissions Violation for Subscription to "harness\.v1\.acc_alpha\.agent-1\.chat"/);
    await expect(subscription.closed).resolves.toBeInstanceOf(Error);
  });

  it("refuses account B a subscription to A's inbox (exact, wildcard or all inboxes), and A's replies never reach B", async () => {
    const service = await connectService();
    const accountBConnection = await connectAccount(accountB);
    const leaked: string[] = [];
    for (const subject of [`_INBOX.${accountA}.>`, '_INBOX.>', '>', `_INBOX.${accountA}.secret-reply`]) {
      const violation = nextServerError(accountBConnection);
      accountBConnection.subscribe(subject, {
        callback: (error, message) => {
          if (error === null) leaked.push(message.subject);
        },
      });
      expect(await violation).toMatch(/Permissions Violation for Subscription/);
    }
    const ownInbox = `${accountNatsCredentials(stageSecret, accountB).inboxPrefix}.sentinel`;
    const sentinel = new Promise<void>((resolve) => accountBConnection.subscribe(ownInbox, { max: 1, callback: () => resolve() }));
    await accountBConnection.flush();
    service.publish(`_INBOX.${accountA}.secret-reply`, 'for A only');
    service.publish(ownInbox, 'sentinel');
    await sentinel;
    expect(leaked).toEqual([]);
  });

  it("refuses account B a publish to A's chat subject, and to the JetStream API", async () => {
    const service = await connectService();
    const chatSubject = accountNatsCredentials(stageSecret, accountA).chatSubject('agent-1');
    const received: string[] = [];
    const sentinelSeen = new Promise<void>((resolve) => {
      service.subscribe(chatSubject, {
        callback: (_error, message) => {
          received.push(message.string());
          if (message.string() === 'from A') resolve();
        },
      });
    });
    await service.flush();
    const accountBConnection = await connectAccount(accountB);
    const violation = nextServerError(accountBConnection);
    accountBConnection.publish(chatSubject, 'from B');
    await accountBConnection.flush();
    expect(await violation).toMatch(/Permissions Violation for Publish to "harness\.v1\.acc_alpha\.agent-1\.chat"/);
    const jetStreamViolation = nextServerError(accountBConnection);
    accountBConnection.publish('$JS.API.STREAM.LIST');
    expect(await jetStreamViolation).toMatch(/Permissions Violation for Publish to "\$JS\.API\.STREAM\.LIST"/);
    (await connectAccount(accountA)).publish(chatSubject, 'from A');
    await sentinelSeen;
    expect(received).toEqual(['from A']);
  });

  it('has JetStream enabled for the service user', async () => {
    const manager = await jetstreamManager(await connectService());
    const stream = await manager.streams.add({ name: 'harness-test', subjects: ['harness.test.stream.>'] });
    expect(stream.config.name).toBe('harness-test');
    const accountInfo = await manager.getAccountInfo();
    expect(accountInfo.streams).toBe(1);
  });

  it('writes a 0600 config file that holds no secret and no account', async () => {
    const config = await readFile(server.configPath, 'utf8');
    expect((await stat(server.configPath)).mode & 0o777).toBe(0o600);
    expect(config).not.toContain(serviceToken);
    expect(config).not.toContain(server.serviceCredentials.seed);
    expect(config).not.toMatch(/"S[OAU][A-Z2-7]{50,}"/);
    for (const accountId of [accountA, accountB]) expect(config).not.toContain(accountId);
    expect(config).toMatch(/^operator: "ey/m);
    expect(config).toContain('resolver: MEMORY');
    expect(config).not.toMatch(/^\s*http/m);
  });

  it('lets an account that did not exist at start connect, without rewriting or reloading the server', async () => {
    const before = { pid: server.pid, config: await readFile(server.configPath, 'utf8'), modified: (await stat(server.configPath)).mtimeMs };
    const accountCConnection = await connectAccount(accountC);
    expect(accountCConnection.isClosed()).toBe(false);
    const violation = nextServerError(accountCConnection);
    accountCConnection.subscribe(`_INBOX.${accountA}.>`);
    expect(await violation).toMatch(/Permissions Violation for Subscription/);
    expect(server.pid).toBe(before.pid);
    expect(await readFile(server.configPath, 'utf8')).toBe(before.config);
    expect((await stat(server.configPath)).mtimeMs).toBe(before.modified);
  });

  it('refuses a user JWT signed by another key, and a password', async () => {
    const stranger = await (await import('./nats-authority.js')).createNatsAuthority(randomSecret());
    const user = await issueAccountUser(stranger, accountA);
    await expect(connectNats({ url: server.url, jwt: user.jwt, seed: user.seed, name: 'stranger', logger: silentLogger })).rejects.toThrow(/Authorization Violation/);
    await expect(connectNats({ url: server.url, user: `account-${accountA}`, password: accountNatsCredentials(stageSecret, accountA).password, name: 'password', logger: silentLogger })).rejects.toThrow(/Authorization Violation/);
  });

  it('rejects an account id that could widen a subject permission', async () => {
    await expect(issueAccountUser(server.authority, 'acc.>')).rejects.toThrow(/accountId must be/);
  });
});

describe('starting and stopping', () => {
  it('kills the child on stop', async () => {
    const dataDir = await makeTemporaryDataDir();
    try {
      const server = await startNatsServer({ dataDir: dataDir.path, stageSecret, logger: silentLogger });
      await server.stop();
      expect(() => process.kill(server.pid, 0)).toThrow();
      await server.stop();
    } finally {
      await dataDir.remove();
    }
  });

  it('stops a nats-server left running on the same data folder by an earlier service', async () => {
    const dataDir = await makeTemporaryDataDir();
    try {
      const leftover = await startNatsServer({ dataDir: dataDir.path, stageSecret, logger: silentLogger });
      const replacement = await startNatsServer({ dataDir: dataDir.path, stageSecret, logger: silentLogger });
      expect(() => process.kill(leftover.pid, 0)).toThrow();
      await replacement.stop();
      await leftover.stop();
    } finally {
      await dataDir.remove();
    }
  });

  it('says how to install nats-server when it cannot be found', async () => {
    const dataDir = await makeTemporaryDataDir();
    try {
      await expect(
        startNatsServer({ dataDir: dataDir.path, searchFolders: [dataDir.path], stageSecret, logger: silentLogger }),
      ).rejects.toThrow('apt-get install -y nats-server');
    } finally {
      await dataDir.remove();
    }
  });

  it("shows the server's own log when it cannot start", async () => {
    const dataDir = await makeTemporaryDataDir();
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const takenPort = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const starting = startNatsServer({ dataDir: dataDir.path, port: takenPort, stageSecret, logger: silentLogger });
      await expect(starting).rejects.toThrow(NatsServerStartError);
      await expect(starting).rejects.toThrow(/nats-server said:[\s\S]*address already in use/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
      await dataDir.remove();
    }
  });
});
