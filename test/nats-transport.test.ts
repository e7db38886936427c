import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../server/core/logger.js';
import { connectNats } from '../server/nats/nats-connection.js';
import { chatSubject } from '../server/nats/nats-subjects.js';
import { collectChunks } from './support/sse-chunks.js';
import { startRecordingWorker } from './support/recording-worker.js';
import { finishStatus, startNatsStack, TestInbox, textOf, type NatsStack, type NatsTestAccount, type ReceivedChunk } from './support/nats-stack.js';

let stack: NatsStack;
let alice: NatsTestAccount;
let bob: NatsTestAccount;

beforeAll(async () => {
  stack = await startNatsStack();
  alice = await stack.createAccount('alice');
  bob = await stack.createAccount('bob');
  await stack.putAgent(alice.secret, 'echo', { provider: stack.provider() });
  await stack.waitForNats();
});

afterAll(async () => {
  await stack?.close();
});

function sequences(messages: ReceivedChunk[]): number[] {
  return messages.map((message) => message.sequence ?? -1);
}

function expectIncreasing(values: number[]): void {
  expect(values.every((value) => value > 0)).toBe(true);
  for (let index = 1; index < values.length; index += 1) expect(values[index]!).toBeGreaterThan(values[index - 1]!);
}

describe('NATS gateway', () => {
  it('GET / says nats: "connected" once the gateway is subscribed', async () => {
    expect(await stack.root()).toMatchObject({ service: 'agent', status: 'ok', nats: 'connected' });
  });

  it('hands the account its NATS credentials', () => {
    expect(alice.nats).toMatchObject({
      authentication: 'jwt',
      user: `account-${alice.accountId}`,
      inboxPrefix: `_INBOX.${alice.accountId}`,
      chatSubject: `harness.v1.${alice.accountId}.{agentId}.chat`,
      replaySubject: `harness.v1.${alice.accountId}.{agentId}.replay`,
      replySubject: `_INBOX.${alice.accountId}.>`,
    });
    expect(alice.nats.url).toMatch(/^nats:\/\/127\.0\.0\.1:\d+$/);
    expect(alice.nats.websocketUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    expect(alice.nats.password!.length).toBeGreaterThanOrEqual(43);
  });

  for (const transport of ['tcp', 'websocket'] as const) {
    it(`runs a full turn for a ${transport} client, with the same chunks as SSE`, async () => {
      const connection = await stack.connect(alice, transport);
      const inbox = new TestInbox(connection, alice.nats.inboxPrefix);
      await inbox.request(chatSubject(alice.accountId, 'echo'), alice.secret, { conversationKey: `over ${transport} / é`, message: 'hello there' });
      const messages = await inbox.untilFinal();
      inbox.close();
      expect(messages[0]?.chunk).toMatchObject({ type: 'start' });
      expect(finishStatus(messages)).toBe('completed');
      expect(textOf(messages)).toBe('Echo: hello there');
      expectIncreasing(sequences(messages));
      const finish = messages.at(-1)?.chunk as { messageMetadata: { turnId: string } };
      expect(new Set(messages.map((message) => message.turnId))).toEqual(new Set([finish.messageMetadata.turnId]));

      const sse = await collectChunks(
        await fetch(`${stack.agentUrl}/agents/echo/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${alice.secret}` },
          body: JSON.stringify({ conversationKey: `sse twin of ${transport}`, message: 'hello there' }),
        }),
      );
      expect(messages.map((message) => message.chunk?.type)).toEqual(sse.map((chunk) => chunk.type));
    });
  }

  it('refuses a wrong NATS password', async () => {
    await expect(
      connectNats({ url: alice.nats.url!, user: alice.nats.user!, password: `${alice.nats.password}x`, name: 'wrong-password', logger: silentLogger, timeoutMilliseconds: 3_000 }),
    ).rejects.toThrow(/authorization/i);
  });

  it('answers a bad, missing or foreign account secret with an error chunk, and runs nothing', async () => {
    const connection = await stack.connect(alice);
    const callsBefore = stack.model.callCount();
    for (const secret of ['not-a-secret', undefined, bob.secret]) {
      const inbox = new TestInbox(connection, alice.nats.inboxPrefix);
      await inbox.request(chatSubject(alice.accountId, 'echo'), secret, { conversationKey: 'refused', message: 'hello' });
      const messages = await inbox.untilFinish();
      inbox.close();
      expect(messages).toHaveLength(2);
      expect(messages[0]?.chunk).toMatchObject({ type: 'error', errorText: expect.any(String) });
      expect(messages[1]?.chunk).toMatchObject({ type: 'finish', messageMetadata: { status: 'failed', error: { code: 'unauthorized' } } });
      expect(messages.every((message) => message.sequence === undefined)).toBe(true);
    }
    expect(stack.model.callCount()).toBe(callsBefore);
    const history = await fetch(`${stack.agentUrl}/agents/echo/conversations/refused`, { headers: { authorization: `Bearer ${alice.secret}` } });
    expect(history.status).toBe(404);
  });

  it('answers an invalid body or an unknown agent with an error chunk', async () => {
    const connection = await stack.connect(alice);
    const inbox = new TestInbox(connection, alice.nats.inboxPrefix);
    await inbox.request(chatSubject(alice.accountId, 'echo'), alice.secret, { conversationKey: 'k' });
    expect((await inbox.untilFinish()).map((message) => message.chunk)).toEqual([
      { type: 'error', errorText: 'message is required' },
      { type: 'finish', messageMetadata: { status: 'failed', error: { code: 'invalid_request', message: 'message is required' } } },
    ]);
    await inbox.request(chatSubject(alice.accountId, 'nobody'), alice.secret, { conversationKey: 'k', message: 'hi' });
    expect((await inbox.untilFinish()).at(-1)?.chunk).toMatchObject({ messageMetadata: { status: 'failed', error: { code: 'not_found' } } });
    inbox.close();
  });

  it('never answers into another account inbox', async () => {
    const bobConnection = await stack.connect(bob);
    const bobInbox = new TestInbox(bobConnection, bob.nats.inboxPrefix);
    await bobConnection.flush();
    const aliceConnection = await stack.connect(alice);
    const callsBefore = stack.model.callCount();
    const headers = (await import('@nats-io/nats-core')).headers();
    headers.set('Authorization', `Bearer ${alice.secret}`);
    aliceConnection.publish(chatSubject(alice.accountId, 'echo'), JSON.stringify({ conversationKey: 'steer', message: 'hello' }), { reply: bobInbox.subject, headers });
    await aliceConnection.flush();
    expect(await bobInbox.receivesWithin(500)).toBe(false);
    expect(stack.model.callCount()).toBe(callsBefore);
    bobInbox.close();
  });

  it('asks for an approval and continues after the answer, over NATS', async () => {
    await stack.putAgent(alice.secret, 'careful', { provider: stack.provider(), tools: { test_async: { needsApproval: true, durationMs: 1 } } });
    const connection = await stack.connect(alice, 'websocket');
    const inbox = new TestInbox(connection, alice.nats.inboxPrefix);
    await inbox.request(chatSubject(alice.accountId, 'careful'), alice.secret, { conversationKey: 'approval', message: 'call test_async {"label":"x"}' });
    const first = await inbox.untilFinish();
    expect(finishStatus(first)).toBe('awaiting_approval');
    const request = first.find((message) => message.chunk?.type === 'tool-approval-request')?.chunk as { approvalId: string } | undefined;
    expect(request?.approvalId).toEqual(expect.any(String));

    await inbox.request(chatSubject(alice.accountId, 'careful'), alice.secret, {
      conversationKey: 'approval',
      message: { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: true }] },
    });
    const second = await inbox.untilFinal();
    inbox.close();
    expect(second.some((message) => message.chunk?.type === 'tool-output-available')).toBe(true);
    expect(finishStatus(second)).toBe('completed');
    expect(textOf(second)).toContain('test_async: {"label":"x"');
    expect(Math.min(...sequences(second))).toBeGreaterThan(Math.max(...sequences(first)));
  });

  it('streams an external-dispatch continuation to the reply subject of the request', async () => {
    const worker = await startRecordingWorker();
    try {
      await stack.putAgent(alice.secret, 'dispatcher', {
        provider: stack.provider(),
        tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: alice.secret, workerUrl: worker.dispatchUrl } },
      });
      const connection = await stack.connect(alice, 'websocket');
      const inbox = new TestInbox(connection, alice.nats.inboxPrefix);
      await inbox.request(chatSubject(alice.accountId, 'dispatcher'), alice.secret, { conversationKey: 'dispatch', message: 'call test_external_async {"task":"t"}' });
      const first = await inbox.untilFinish();
      expect(finishStatus(first)).toBe('waiting_async_tools');
      expect(worker.dispatches).toHaveLength(1);

      const completed = await worker.complete(worker.dispatches[0]!, { status: 'completed', response: { answer: 42 } });
      expect(completed).toMatchObject({ status: 202, body: { continuation: 'accepted' } });
      const continuation = await inbox.untilFinal();
      inbox.close();
      expect(continuation[0]?.chunk).toMatchObject({ type: 'start' });
      expect(continuation[1]?.chunk).toMatchObject({ type: 'data-async-tool-settled' });
      expect(finishStatus(continuation)).toBe('completed');
      expect(textOf(continuation)).toContain('"answer":42');
      expect(continuation[0]?.turnId).not.toBe(first[0]?.turnId);
    } finally {
      await worker.close();
    }
  });
});
