import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSubject } from '../server/nats/nats-subjects.js';
import { finishStatus, startNatsStack, TestInbox, type NatsStack, type NatsTestAccount } from './support/nats-stack.js';

/** The per-account turn budget (HARNESS_LIMIT_TURNS_PER_MINUTE) counts NATS chat requests as HTTP ones. */
let stack: NatsStack;
let alice: NatsTestAccount;
const previous = process.env.HARNESS_LIMIT_TURNS_PER_MINUTE;

beforeAll(async () => {
  // Read once when the service starts; restored right after.
  process.env.HARNESS_LIMIT_TURNS_PER_MINUTE = '2';
  try {
    stack = await startNatsStack();
  } finally {
    if (previous === undefined) delete process.env.HARNESS_LIMIT_TURNS_PER_MINUTE;
    else process.env.HARNESS_LIMIT_TURNS_PER_MINUTE = previous;
  }
  alice = await stack.createAccountWithEcho('budgeted');
  await stack.waitForNats();
});

afterAll(async () => {
  await stack?.close();
});

describe('NATS turn budget', () => {
  it('refuses a NATS chat request past the budget with rate_limited, and the budget is the one HTTP chat spends', async () => {
    const connection = await stack.connect(alice);
    const ask = async (conversationKey: string) => {
      const inbox = new TestInbox(connection, alice.nats.inboxPrefix);
      await inbox.request(chatSubject(alice.accountId, 'echo'), alice.secret, { conversationKey, message: 'hello' });
      const messages = await inbox.untilFinal();
      inbox.close();
      return messages;
    };
    const http = await fetch(`${stack.agentUrl}/agents/echo/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${alice.secret}` },
      body: JSON.stringify({ conversationKey: 'over-http', message: 'hello' }),
    });
    expect(http.status).toBe(200);
    expect(finishStatus(await ask('first'))).toBe('completed');
    const callsBefore = stack.model.callCount();
    const refused = await ask('second');
    expect(finishStatus(refused)).toBe('failed');
    const finish = refused.at(-1)?.chunk as { messageMetadata: { error: { code: string; message: string; retryAfterSeconds: number } } };
    expect(finish.messageMetadata.error).toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/^Too many turns for this account; retry in \d+ s\.$/), retryAfterSeconds: expect.any(Number) });
    expect(refused.some((message) => message.chunk?.type === 'error')).toBe(true);
    expect(stack.model.callCount()).toBe(callsBefore);
  });
});
