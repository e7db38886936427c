import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextServerError } from '../server/nats/test-support/nats-test-support.js';
import { chatSubject, replayRequestSubject } from '../server/nats/nats-subjects.js';
import { startNatsStack, TestInbox, type NatsStack, type NatsTestAccount } from './support/nats-stack.js';

describe('NATS isolation between accounts', () => {
  let stack: NatsStack;
  let alice: NatsTestAccount;
  let bob: NatsTestAccount;

  beforeAll(async () => {
    stack = await startNatsStack();
    alice = await stack.createAccount('alice');
    bob = await stack.createAccount('bob');
    await stack.putAgent(alice.secret, 'echo', { provider: stack.provider() });
    await stack.putAgent(bob.secret, 'echo', { provider: stack.provider() });
    await stack.waitForNats();
    const connection = await stack.connect(alice);
    const inbox = new TestInbox(connection, alice.nats.inboxPrefix);
    await inbox.request(chatSubject(alice.accountId, 'echo'), alice.secret, { conversationKey: 'private', message: 'my secret plans' });
    await inbox.untilFinal();
    inbox.close();
  });

  afterAll(async () => {
    await stack?.close();
  });

  it("refuses B a subscription to A's chat subject and to A's inbox", async () => {
    const connection = await stack.connect(bob, 'websocket');
    for (const subject of [chatSubject(alice.accountId, 'echo'), `_INBOX.${alice.accountId}.>`, '_INBOX.>']) {
      const violation = nextServerError(connection);
      connection.subscribe(subject);
      expect(await violation).toMatch(/Permissions Violation for Subscription/);
    }
  });

  it("refuses B a publish to A's replay subject, and B's own replay never shows A's chunks", async () => {
    const connection = await stack.connect(bob);
    const violation = nextServerError(connection);
    connection.publish(replayRequestSubject(alice.accountId, 'echo'), JSON.stringify({ conversationKey: 'private', afterSequence: 0 }));
    await connection.flush();
    expect(await violation).toMatch(/Permissions Violation for Publish to "harness\.v1\.acc_[0-9a-f]+\.echo\.replay"/);

    const inbox = new TestInbox(connection, bob.nats.inboxPrefix);
    await inbox.request(replayRequestSubject(bob.accountId, 'echo'), bob.secret, { conversationKey: 'private', afterSequence: 0 });
    expect(await inbox.untilReplayEnd()).toEqual([{ replayEnd: 0 }]);
    inbox.close();
  });

  it('the service user is the only one that can reach JetStream', async () => {
    const connection = await stack.connect(alice);
    const violation = nextServerError(connection);
    connection.publish('$JS.API.STREAM.MSG.GET.HARNESS_CHUNKS', JSON.stringify({ seq: 1 }));
    expect(await violation).toMatch(/Permissions Violation for Publish/);
  });
});

describe('NATS disabled', () => {
  let stack: NatsStack;

  beforeAll(async () => {
    stack = await startNatsStack({ nats: { mode: 'disabled' } });
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('GET / says nats: "disabled" and GET /accounts/me/nats is a 404', async () => {
    expect(await stack.root()).toMatchObject({ service: 'agent', nats: 'disabled' });
    const created = (await (await fetch(`${stack.accountUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'carol', description: '' }) })).json()) as { secret: string };
    const credentials = await fetch(`${stack.accountUrl}/accounts/me/nats`, { headers: { authorization: `Bearer ${created.secret}` } });
    expect(credentials.status).toBe(404);
    expect(await credentials.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('NATS unreachable', () => {
  let stack: NatsStack;

  beforeAll(async () => {
    stack = await startNatsStack({ nats: { mode: 'external', url: 'nats://127.0.0.1:1', transport: 'tcp', token: 'nobody-listens-here' } });
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('GET / says nats: "disconnected" and the HTTP services work', async () => {
    expect(await stack.root()).toMatchObject({ status: 'ok', nats: 'disconnected' });
    const created = await fetch(`${stack.accountUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'dave', description: '' }) });
    expect(created.status).toBe(201);
  });
});
