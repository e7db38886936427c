import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { words } from '../fixtures/model-server/model-plan.js';
import { chatSubject, replayRequestSubject } from '../server/nats/nats-subjects.js';
import { startRecordingWorker } from './support/recording-worker.js';
import { finishStatus, startNatsStack, TestInbox, textOf, type NatsStack, type NatsTestAccount, type ReceivedChunk } from './support/nats-stack.js';

let stack: NatsStack;
let alice: NatsTestAccount;

beforeAll(async () => {
  stack = await startNatsStack();
  alice = await stack.createAccountWithEcho('alice');
  await stack.waitForNats();
});

afterAll(async () => {
  await stack?.close();
});

const chunksOnly = (messages: ReceivedChunk[]) => messages.filter((message) => message.replayEnd === undefined);

function expectStrictlyIncreasing(messages: ReceivedChunk[]): void {
  const sequences = messages.map((message) => message.sequence ?? 0);
  expect(sequences.every((sequence) => sequence > 0)).toBe(true);
  expect(sequences).toEqual([...new Set(sequences)].sort((left, right) => left - right));
}

async function replay(body: Record<string, unknown>, secret = alice.secret, agentId = 'echo'): Promise<ReceivedChunk[]> {
  const connection = await stack.connect(alice);
  const inbox = new TestInbox(connection, alice.nats.inboxPrefix);
  await inbox.request(replayRequestSubject(alice.accountId, agentId), secret, body);
  const messages = await inbox.untilReplayEnd();
  inbox.close();
  return messages;
}

describe('NATS stream replay', () => {
  it('gives a client that dropped mid-turn every missed chunk once and in order, then the live ones to the finish', async () => {
    stack.model.setOptions({ chunkDelayMs: 3 });
    try {
      const first = await stack.connect(alice);
      const inbox = new TestInbox(first, alice.nats.inboxPrefix);
      await inbox.request(chatSubject(alice.accountId, 'echo'), alice.secret, { conversationKey: 'dropped', message: 'long: 200' });
      const seen: ReceivedChunk[] = [];
      while (seen.length < 20) seen.push(await inbox.next());
      // The connection goes away mid-turn: whatever is published meanwhile is lost to it.
      await first.close();
      const lastSequence = seen.at(-1)!.sequence!;

      const resumed = await replay({ conversationKey: 'dropped', afterSequence: lastSequence });
      expect(resumed.at(-1)?.replayEnd).toBe(resumed.at(-2)?.sequence);
      const combined = [...seen, ...chunksOnly(resumed)];
      expectStrictlyIncreasing(combined);
      expect(finishStatus(combined)).toBe('completed');
      expect(textOf(combined)).toBe(words(200));

      // The same chunks a full replay of the turn gives, no more, no fewer.
      const turnId = combined[0]!.turnId!;
      const full = chunksOnly(await replay({ conversationKey: 'dropped', turnId, afterSequence: 0 }));
      expect(full).toEqual(combined);
    } finally {
      stack.model.setOptions({ chunkDelayMs: 0 });
    }
  });

  it('answers only the end marker when the client already has the final finish, or the conversation has nothing', async () => {
    const connection = await stack.connect(alice);
    const inbox = new TestInbox(connection, alice.nats.inboxPrefix);
    await inbox.request(chatSubject(alice.accountId, 'echo'), alice.secret, { conversationKey: 'complete', message: 'hi' });
    const messages = await inbox.untilFinal();
    inbox.close();
    const last = messages.at(-1)!.sequence!;
    expect(await replay({ conversationKey: 'complete', afterSequence: last })).toEqual([{ replayEnd: last }]);
    expect(await replay({ conversationKey: 'never used', afterSequence: 0 })).toEqual([{ replayEnd: 0 }]);
    const again = chunksOnly(await replay({ conversationKey: 'complete', afterSequence: 0 }));
    expect(again).toEqual(messages);
  });

  it('keeps later turns of the conversation apart by turn id', async () => {
    const connection = await stack.connect(alice);
    const inbox = new TestInbox(connection, alice.nats.inboxPrefix);
    await inbox.request(chatSubject(alice.accountId, 'echo'), alice.secret, { conversationKey: 'two turns', message: 'one' });
    const one = await inbox.untilFinal();
    await inbox.request(chatSubject(alice.accountId, 'echo'), alice.secret, { conversationKey: 'two turns', message: 'two' });
    const two = await inbox.untilFinal();
    inbox.close();
    expect(chunksOnly(await replay({ conversationKey: 'two turns', afterSequence: 0 }))).toEqual([...one, ...two]);
    expect(chunksOnly(await replay({ conversationKey: 'two turns', turnId: two[0]!.turnId, afterSequence: 0 }))).toEqual(two);
    expect(chunksOnly(await replay({ conversationKey: 'two turns', afterSequence: one.at(-1)!.sequence! }))).toEqual(two);
  });

  it('delivers a continuation that ran while the client was away', async () => {
    const worker = await startRecordingWorker();
    try {
      await stack.putAgent(alice.secret, 'dispatcher', {
        provider: stack.provider(),
        tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: alice.secret, workerUrl: worker.dispatchUrl } },
      });
      const first = await stack.connect(alice);
      const inbox = new TestInbox(first, alice.nats.inboxPrefix);
      await inbox.request(chatSubject(alice.accountId, 'dispatcher'), alice.secret, { conversationKey: 'away', message: 'call test_external_async {}' });
      const waiting = await inbox.untilFinish();
      expect(finishStatus(waiting)).toBe('waiting_async_tools');
      await first.close();
      expect((await worker.complete(worker.dispatches[0]!, { status: 'completed', response: { late: true } })).status).toBe(202);

      const resumed = chunksOnly(await replay({ conversationKey: 'away', afterSequence: waiting.at(-1)!.sequence! }, alice.secret, 'dispatcher'));
      expect(resumed[1]?.chunk).toMatchObject({ type: 'data-async-tool-settled' });
      expect(finishStatus(resumed)).toBe('completed');
      expect(textOf(resumed)).toContain('"late":true');
      expectStrictlyIncreasing([...waiting, ...resumed]);
    } finally {
      await worker.close();
    }
  });

  it('refuses a replay with a bad secret or body, and then ends the answer', async () => {
    const refused = await replay({ conversationKey: 'complete', afterSequence: 0 }, 'wrong');
    expect(refused.map((message) => message.chunk?.type ?? 'end')).toEqual(['error', 'finish', 'end']);
    const invalid = await replay({ conversationKey: 'complete', afterSequence: -1 });
    expect(invalid[0]?.chunk).toEqual({ type: 'error', errorText: 'afterSequence must be a whole number >= 0' });
  });
});
