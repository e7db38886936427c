import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { requestJson } from './support/json-request.js';
import { waitUntil } from './support/wait-until.js';

const maxResponseBytes = 2 * 1024 * 1024;

/**
 * An account's model `baseURL` may point at a server that streams forever. The service reads at
 * most HARNESS_MODEL_MAX_RESPONSE_BYTES of one model call's answer: the turn then ends like any
 * failed model call (502 on the JSON chat), and the connection to that server is closed, so the
 * service's memory and the turn's slot are not held without end.
 */
describe('the model answer is capped per call', () => {
  let stack: ChatStack;
  let secret: string;

  beforeAll(async () => {
    // The answer's own bound set past the byte cap, so the byte cap is what ends the call.
    stack = await startChatStack({ model: { maxResponseBytes, maxResponseMs: 600_000 }, turns: { maxAnswerCharacters: 64 * 1024 * 1024 } });
    secret = (await stack.createAccount('endless')).secret;
  });
  afterAll(async () => {
    await stack.close();
  });

  it.each(['chat', 'responses'] as const)('a model that streams forever (%s API) ends the turn with a clear 502, and the service hangs up on it', async (api) => {
    await stack.putAgent(secret, `endless-${api}`, { provider: stack.provider(api) });
    stack.model.resetCalls();
    const response = await stack.chat(secret, `endless-${api}`, { conversationKey: 'k', message: 'endless' });
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error).toEqual({ code: 'upstream_error', message: `The model call failed: the model's answer exceeded ${maxResponseBytes} bytes` });
    const [call] = stack.model.calls();
    const endless = await waitUntil('the service to hang up on the endless model', () => (call?.endless?.clientGone ? call.endless : undefined));
    // What the fixture wrote before the service hung up: the cap, plus what the sockets' buffers held.
    expect(endless.bytes).toBeGreaterThan(maxResponseBytes);
    expect(endless.bytes).toBeLessThan(maxResponseBytes + 32 * 1024 * 1024);
  });
});

/**
 * Under the byte cap, the characters one model call may stream are bounded too
 * (HARNESS_TURN_MAX_ANSWER_CHARACTERS): what a conversation stores of one answer, and sends
 * again with every later call, stays small. Before the bound, a cancel 24 MiB into an endless
 * answer stored it all (25.6 MB conversation, the event loop held 0.6 s by the save).
 */
describe('the characters of one model answer are bounded', () => {
  const maxAnswerCharacters = 256 * 1024;
  let stack: ChatStack;
  let secret: string;

  beforeAll(async () => {
    stack = await startChatStack({ model: { maxResponseBytes: 32 * 1024 * 1024, maxResponseMs: 600_000 }, turns: { maxAnswerCharacters } });
    secret = (await stack.createAccount('long-answers')).secret;
  });
  afterAll(async () => {
    await stack.close();
  });

  it('an endless answer fails the turn once it passes the bound, long before the byte cap, and none of it is stored', async () => {
    await stack.putAgent(secret, 'endless', { provider: stack.provider('chat') });
    stack.model.resetCalls();
    const response = await stack.chat(secret, 'endless', { conversationKey: 'k', message: 'endless' });
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error).toEqual({ code: 'upstream_error', message: `The model call failed: the model's answer exceeded ${maxAnswerCharacters} characters` });
    const stored = (await requestJson<{ messages: { role: string }[] }>(`${stack.agentUrl}/agents/endless/conversations/k`, { secret })).body.messages;
    expect(stored.map((message) => message.role)).toEqual(['user']);
    const [call] = stack.model.calls();
    const endless = await waitUntil('the service to hang up on the endless model', () => (call?.endless?.clientGone ? call.endless : undefined));
    // The bound and what the sockets' buffers held, far from the 32 MiB cap.
    expect(endless.bytes).toBeLessThan(8 * 1024 * 1024);
  });
});
