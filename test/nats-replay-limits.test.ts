import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultResumeLimits } from '../server/core/stream-resumes/resume-settings.js';
import { chatSubject, replayRequestSubject } from '../server/nats/nats-subjects.js';
import { finishStatus, startNatsStack, TestInbox, type NatsStack, type NatsTestAccount } from './support/nats-stack.js';

let stack: NatsStack;
let alice: NatsTestAccount;

beforeAll(async () => {
  stack = await startNatsStack();
  alice = await stack.createAccountWithEcho('replay-flood');
  await stack.waitForNats();
});

afterAll(async () => {
  await stack?.close();
});

describe('NATS replays are bounded per turn (issue 23)', () => {
  it('60 concurrent replays of one running turn: the per-turn limit are served to the finish, the rest refused rate_limited', async () => {
    stack.model.setOptions({ chunkDelayMs: 10 });
    try {
      const connection = await stack.connect(alice);
      const chat = new TestInbox(connection, alice.nats.inboxPrefix);
      await chat.request(chatSubject(alice.accountId, 'echo'), alice.secret, { conversationKey: 'flooded', message: 'long: 300' });
      const first = await chat.next();
      const inboxes = Array.from({ length: 60 }, () => new TestInbox(connection, alice.nats.inboxPrefix));
      await Promise.all(inboxes.map((inbox) => inbox.request(replayRequestSubject(alice.accountId, 'echo'), alice.secret, { conversationKey: 'flooded', turnId: first.turnId, afterSequence: 0 })));
      const answers = await Promise.all(inboxes.map((inbox) => inbox.untilReplayEnd()));
      const refused = answers.filter((messages) => messages.some((message) => message.chunk?.type === 'error'));
      const served = answers.filter((messages) => !refused.includes(messages));
      expect(served).toHaveLength(defaultResumeLimits.perTurn);
      for (const messages of served) expect(finishStatus(messages)).toBe('completed');
      for (const messages of refused) {
        expect(messages.find((message) => message.chunk?.type === 'finish')?.chunk).toMatchObject({ messageMetadata: { status: 'failed', error: { code: 'rate_limited', retryAfterSeconds: 1 } } });
      }
      for (const inbox of [chat, ...inboxes]) inbox.close();
    } finally {
      stack.model.setOptions({ chunkDelayMs: 0 });
    }
  });
});
