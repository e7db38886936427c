import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultResumeLimits } from '../server/core/stream-resumes/resume-settings.js';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { events, pausingTurn, readAll, readUntil } from './support/sse-events.js';

describe('stream resumes are bounded per turn and per account (issue 23)', () => {
  let stack: ChatStack;
  let secret: string;

  beforeAll(async () => {
    stack = await startChatStack();
    secret = (await stack.createAccount('many-resumes')).secret;
    await stack.putAgent(secret, 'helper', { provider: stack.provider(), tools: { alphaSearch: { apiKey: 'tvly-fixture-search-key-0123456789', maxResults: 1 } } });
  });
  afterAll(async () => {
    await stack.close();
  });

  const resume = (conversationKey: string, lastEventId: string) =>
    fetch(`${stack.agentUrl}/agents/helper/conversations/${encodeURIComponent(conversationKey)}/stream`, { headers: { authorization: `Bearer ${secret}`, 'last-event-id': lastEventId } });

  it('300 concurrent resumes of one running turn: at most the per-turn limit are streamed, the rest are 429 rate_limited, and the streamed ones reach the finish', async () => {
    const conversationKey = 'flooded';
    const first = events(await stack.chat(secret, 'helper', { conversationKey, message: pausingTurn }, 'text/event-stream'));
    const head = await readUntil(first, 'tool-output-available');
    const answers = await Promise.all(Array.from({ length: 300 }, () => resume(conversationKey, head.at(-1)!.id!)));
    const accepted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(accepted).toHaveLength(defaultResumeLimits.perTurn);
    expect(new Set(refused.map((answer) => answer.status))).toEqual(new Set([429]));
    const refusal = (await refused[0]!.json()) as { error: { code: string; message: string } };
    expect(refusal.error.code).toBe('rate_limited');
    expect(refused[0]!.headers.get('retry-after')).toBe('1');
    await Promise.all(refused.slice(1).map((answer) => answer.body?.cancel()));
    for (const streamed of await Promise.all(accepted.map((answer) => readAll(events(answer))))) {
      expect(streamed.at(-2)?.chunk).toMatchObject({ type: 'finish', messageMetadata: { status: 'completed' } });
    }
    await readAll(first);
    // The places are given back when the readers end: the turn can be resumed again.
    const again = await resume(conversationKey, head.at(-1)!.id!);
    expect(again.status).toBe(200);
    await readAll(events(again));
  });
});
