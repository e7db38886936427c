import { afterEach, describe, expect, it } from 'vitest';
import { startChatStack, type ChatStack } from './support/chat-stack.js';

describe('limits', () => {
  let stack: ChatStack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  async function agentStack(limits: NonNullable<Parameters<typeof startChatStack>[0]>['limits']) {
    stack = await startChatStack({ limits });
    const account = await stack.createAccount('limited');
    await stack.putAgent(account.secret, 'agent', { provider: stack.provider(), tools: { test_async: { durationMs: 1 } } });
    return { stack, secret: account.secret };
  }

  it('answers 429 with Retry-After past the per-account turn budget, and other accounts are not affected', async () => {
    const { stack, secret } = await agentStack({ turnRequestsPerMinute: 2 });
    const statuses: number[] = [];
    for (let index = 0; index < 3; index += 1) statuses.push((await stack.chat(secret, 'agent', { conversationKey: 'k', message: 'hi' })).status);
    expect(statuses).toEqual([200, 200, 429]);
    const limited = await stack.chat(secret, 'agent', { conversationKey: 'k', message: 'hi' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    const other = await stack.createAccount('unlimited');
    await stack.putAgent(other.secret, 'agent', { provider: stack.provider() });
    expect((await stack.chat(other.secret, 'agent', { conversationKey: 'k', message: 'hi' })).status).toBe(200);
    const asyncCall = await fetch(`${stack.agentUrl}/agents/agent/async`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ conversationKey: 'k', message: 'x' }) });
    expect(asyncCall.status).toBe(429);
  });

  it('gives the completion endpoint a budget of its own', async () => {
    const { stack, secret } = await agentStack({ completionRequestsPerMinute: 1 });
    const complete = () =>
      fetch(`${stack.agentUrl}/async-tools/res_grp_000000000000000000000000_0/complete`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'failed', error: 'x' }),
      });
    expect((await complete()).status).toBe(404);
    expect((await complete()).status).toBe(429);
    expect((await stack.chat(secret, 'agent', { conversationKey: 'k', message: 'hi' })).status).toBe(200);
  });

  it('refuses a message over the size limit with 413, on chat and on /async, storing nothing', async () => {
    const { stack, secret } = await agentStack({ maxMessageCharacters: 10 });
    const chat = await stack.chat(secret, 'agent', { conversationKey: 'k', message: 'x'.repeat(11) });
    expect(chat.status).toBe(413);
    expect(((await chat.json()) as { error: { message: string } }).error.message).toBe('message has 11 characters; the limit is 10');
    const asyncCall = await fetch(`${stack.agentUrl}/agents/agent/async`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ conversationKey: 'k', message: 'y'.repeat(11) }) });
    expect(asyncCall.status).toBe(413);
    expect((await fetch(`${stack.agentUrl}/agents/agent/conversations/k`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(404);
  });

  it('stops a conversation at its message limit with a 409 that says what to do', async () => {
    const { stack, secret } = await agentStack({ maxConversationMessages: 4 });
    expect((await stack.chat(secret, 'agent', { conversationKey: 'k', message: 'one' })).status).toBe(200);
    expect((await stack.chat(secret, 'agent', { conversationKey: 'k', message: 'two' })).status).toBe(200);
    const third = await stack.chat(secret, 'agent', { conversationKey: 'k', message: 'three' });
    expect(third.status).toBe(409);
    expect(((await third.json()) as { error: { message: string } }).error.message).toContain('continue in a new conversationKey');
  });

  it('cuts a tool output over the limit into an error with a preview', async () => {
    const { stack, secret } = await agentStack({ maxToolOutputBytes: 50 });
    const answer = (await (await stack.chat(secret, 'agent', { conversationKey: 'k', message: 'call test_async {"label":"a long label that makes the output too big"}' })).json()) as { text: string };
    expect(answer.text).toContain('more than the limit of 50 bytes for one tool output');
  });

  it('limits direct turns running at once per account', async () => {
    const { stack, secret } = await agentStack({ maxConcurrentTurnsPerAccount: 1 });
    stack.model.setOptions({ latencyMs: 2_000 });
    const callsBefore = stack.model.callCount();
    const first = stack.chat(secret, 'agent', { conversationKey: 'a', message: 'hi' });
    // The first turn is inside its model call (the fixture has received it) when the second arrives.
    while (stack.model.callCount() === callsBefore) await new Promise((resolve) => setTimeout(resolve, 10));
    const second = await stack.chat(secret, 'agent', { conversationKey: 'b', message: 'hi' });
    expect((await first).status).toBe(200);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
  });
});
