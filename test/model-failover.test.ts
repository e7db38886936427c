import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerBaseURLs } from '../fixtures/model-server/family-routes.js';
import { type ChatStack, modelKey, startChatStack } from './support/chat-stack.js';

interface Usage {
  totalTokens: number;
  provider?: string;
  model?: string;
}

interface StatusRow {
  status: string;
  usage: Usage;
  usageByCall: Usage[];
  result?: { text: string };
  error?: string;
}

/**
 * `config.model.fallbacks` (issue 24 item 9): a first model that answers 529, 503 or 429 before
 * its first token hands the call to the next one; the status row and the usage name the model
 * that answered. A failure after output has streamed stays a failure.
 */
describe('model failover', () => {
  let stack: ChatStack;
  let secret: string;

  beforeAll(async () => {
    stack = await startChatStack();
    secret = (await stack.createAccount('failover')).secret;
    const urls = providerBaseURLs(stack.model.origin);
    await stack.putAgent(secret, 'chain', {
      provider: { anthropic: { apiKey: modelKey, baseURL: urls.anthropic }, 'openai-compatible': { apiKey: modelKey, baseURL: urls['openai-compatible'] } },
      model: {
        provider: 'anthropic',
        id: 'claude-first',
        timeoutMs: 60_000,
        fallbacks: [{ provider: 'openai-compatible', id: 'second-model', temperature: 0.5, reasoning: 'high' }],
      },
    });
  });
  afterAll(async () => {
    await stack.close();
  });

  /** Runs one turn through `/async` to its end; answers its status row and the protocols and models the fake saw. */
  const run = async (conversationKey: string, message: string): Promise<{ row: StatusRow; calls: { protocol: string | undefined; model: unknown; body: Record<string, unknown> }[] }> => {
    const before = stack.model.callCount();
    const submitted = await fetch(`${stack.agentUrl}/agents/chain/async`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ conversationKey, message }),
    });
    const { eventId } = (await submitted.json()) as { eventId: string };
    let row: StatusRow;
    for (;;) {
      await stack.core.asyncWorker.idle();
      row = (await (await fetch(`${stack.agentUrl}/status/${eventId}`, { headers: { authorization: `Bearer ${secret}` } })).json()) as StatusRow;
      if (row.status === 'completed' || row.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const calls = stack.model.calls().slice(before).map((call) => {
      const body = call.body as Record<string, unknown>;
      return { protocol: call.protocol, model: body.model, body };
    });
    return { row, calls };
  };

  it.each([529, 503, 429])('moves to the next model when the first answers %i before its first token', async (status) => {
    const { row, calls } = await run(`fail-${status}`, `fail: ${status} claude-first\nhello`);
    expect(row.error).toBeUndefined();
    expect(row.status).toBe('completed');
    expect(row.result?.text).toContain('Echo: hello');
    // The first model once (no retries: the next model is the retry), then the second, with its own settings.
    expect(calls.map((call) => [call.protocol, call.model])).toEqual([
      ['anthropic-messages', 'claude-first'],
      ['openai-chat', 'second-model'],
    ]);
    expect(calls[1]!.body).toMatchObject({ temperature: 0.5, reasoning_effort: 'high' });
    expect(calls[1]!.body).not.toHaveProperty('thinking');
    // The status row's usage, each call's and the stored message's name the model that answered.
    expect(row.usage).toMatchObject({ provider: 'openai-compatible', model: 'second-model' });
    expect(row.usageByCall.map((call) => [call.provider, call.model])).toEqual([['openai-compatible', 'second-model']]);
    const { messages } = (await (await fetch(`${stack.agentUrl}/agents/chain/conversations/fail-${status}`, { headers: { authorization: `Bearer ${secret}` } })).json()) as { messages: { role: string; usage?: Usage }[] };
    expect(messages.filter((stored) => stored.role === 'assistant').map((stored) => stored.usage?.model)).toEqual(['second-model']);
  });

  it('stays on the first model when it answers', async () => {
    const { row, calls } = await run('first-answers', 'fail: 529 second-model\nhello');
    expect(row.status).toBe('completed');
    expect(calls.map((call) => call.model)).toEqual(['claude-first']);
    expect(row.usage).toMatchObject({ provider: 'anthropic', model: 'claude-first' });
  });

  it('does not move on for an error the next model would give too (400)', async () => {
    const { row, calls } = await run('bad-request', 'fail: 400 claude-first\nhello');
    expect(row.status).toBe('failed');
    expect(calls.map((call) => call.model)).toEqual(['claude-first']);
  });

  it('fails the turn when the last model fails too', async () => {
    const { row, calls } = await run('all-fail', 'fail: 503');
    expect(row.status).toBe('failed');
    expect(row.error).toContain('503');
    expect(calls.map((call) => call.model)).toEqual(['claude-first', 'second-model']);
  });

  it('never fails over once output has streamed: the first model\'s answer cut off mid-stream (over its bound) fails the turn', async () => {
    const { row, calls } = await run('mid-stream', 'endless');
    expect(row.status).toBe('failed');
    expect(calls.map((call) => call.model)).toEqual(['claude-first']);
  });
});
