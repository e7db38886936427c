import { DefaultChatTransport, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { events, pausingTurn, readAll, readUntil } from './support/sse-events.js';

describe('resuming a stream (GET /agents/{agentId}/conversations/{conversationKey}/stream)', () => {
  let stack: ChatStack;
  let secret: string;
  let otherSecret: string;
  let conversation = 0;
  const nextKey = () => `resume-${(conversation += 1)}`;

  beforeAll(async () => {
    stack = await startChatStack();
    secret = (await stack.createAccount('resumer')).secret;
    otherSecret = (await stack.createAccount('stranger')).secret;
    await stack.putAgent(secret, 'helper', { provider: stack.provider(), tools: { alphaSearch: { apiKey: 'tvly-fixture-search-key-0123456789', maxResults: 1 } } });
    await stack.putAgent(otherSecret, 'helper', { provider: stack.provider() });
  });
  afterAll(async () => {
    await stack.close();
  });

  const resume = (conversationKey: string, lastEventId?: string, bearer = secret) =>
    fetch(`${stack.agentUrl}/agents/helper/conversations/${encodeURIComponent(conversationKey)}/stream`, {
      headers: { authorization: `Bearer ${bearer}`, ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
    });

  it('gives every chunk an id and resumes a running turn after a middle chunk: the rest, nothing repeated, then finish and [DONE]', async () => {
    const conversationKey = nextKey();
    const response = await stack.chat(secret, 'helper', { conversationKey, message: pausingTurn }, 'text/event-stream');
    expect(response.status).toBe(200);
    const first = events(response);
    const head = await readUntil(first, 'tool-output-available');
    // The client drops its connection mid-turn; the turn goes on.
    await first.cancel();
    expect(head.every((event) => typeof event.id === 'string' && event.id.length > 0)).toBe(true);
    expect(new Set(head.map((event) => event.id)).size).toBe(head.length);
    const lastSeen = head.at(-1)!.id!;

    const resumed = await resume(conversationKey, lastSeen);
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const rest = await readAll(events(resumed));
    expect(rest.at(-1)).toEqual({ id: undefined, chunk: undefined }); // data: [DONE]
    const restChunks = rest.slice(0, -1);
    expect(restChunks.at(-1)?.chunk).toMatchObject({ type: 'finish', messageMetadata: { status: 'completed' } });
    // Nothing the client had comes again, and the ids go on from where it stopped.
    const seenIds = new Set(head.map((event) => event.id));
    expect(restChunks.some((event) => seenIds.has(event.id))).toBe(false);
    expect(restChunks.some((event) => event.chunk?.type === 'tool-output-available')).toBe(false);
    const text = restChunks.flatMap((event) => (event.chunk?.type === 'text-delta' ? [event.chunk.delta] : [])).join('');
    expect(text).toContain('the rest of the answer');

    // The whole turn, resumed once more from its first chunk, is the head and the rest.
    const again = await readAll(events(await resume(conversationKey, head[0]!.id)));
    expect([...head.slice(1), ...restChunks].map((event) => event.id)).toEqual(again.slice(0, -1).map((event) => event.id));

    // The dropped connection did not stop the turn: it is stored.
    const stored = (await (await fetch(`${stack.agentUrl}/agents/helper/conversations/${conversationKey}`, { headers: { authorization: `Bearer ${secret}` } })).json()) as { messages: { role: string }[] };
    expect(stored.messages.map((message) => message.role)).toContain('assistant');
  });

  it('resumes a finished turn from a middle id with its stored end, and answers 204 when nothing is left', async () => {
    const conversationKey = nextKey();
    const whole = await readAll(events(await stack.chat(secret, 'helper', { conversationKey, message: 'one two three' }, 'text/event-stream')));
    const chunks = whole.slice(0, -1);
    expect(chunks.at(-1)?.chunk?.type).toBe('finish');
    const middle = Math.floor(chunks.length / 2);
    const rest = await readAll(events(await resume(conversationKey, chunks[middle]!.id)));
    expect(rest.slice(0, -1)).toEqual(chunks.slice(middle + 1));
    expect(rest.at(-1)?.chunk).toBeUndefined();

    // The client has the finish: nothing left. Without an id nothing is running: nothing to send.
    expect((await resume(conversationKey, chunks.at(-1)!.id)).status).toBe(204);
    expect((await resume(conversationKey)).status).toBe(204);
    expect((await resume('never-used')).status).toBe(204);
  });

  it('sends the whole running turn to a client without Last-Event-ID', async () => {
    const conversationKey = nextKey();
    const first = events(await stack.chat(secret, 'helper', { conversationKey, message: pausingTurn }, 'text/event-stream'));
    const head = await readUntil(first, 'tool-output-available');
    const whole = await readAll(events(await resume(conversationKey)));
    expect(whole.slice(0, head.length)).toEqual(head);
    expect(whole.at(-2)?.chunk?.type).toBe('finish');
    await readAll(first);
  });

  it("refuses another account's agent (404), finds nothing of another account's turn (204), and checks the id (400)", async () => {
    const conversationKey = nextKey();
    const whole = await readAll(events(await stack.chat(secret, 'helper', { conversationKey, message: 'private words' }, 'text/event-stream')));
    const stranger = await fetch(`${stack.agentUrl}/agents/nobody-here/conversations/${conversationKey}/stream`, { headers: { authorization: `Bearer ${otherSecret}` } });
    expect(stranger.status).toBe(404);
    // The other account has an agent of the same name: the id of this account's turn names nothing there.
    expect((await resume(conversationKey, whole[0]!.id, otherSecret)).status).toBe(204);
    expect((await resume(conversationKey, 'not an id')).status).toBe(400);
    expect((await fetch(`${stack.agentUrl}/agents/helper/conversations/${conversationKey}/stream`)).status).toBe(401);
  });

  it("works with the AI SDK client's own reconnect (DefaultChatTransport.reconnectToStream)", async () => {
    const conversationKey = nextKey();
    const transport = new DefaultChatTransport({ api: `${stack.agentUrl}/agents/helper/chat`, headers: { authorization: `Bearer ${secret}` } });
    // Nothing running: the transport gets the 204 as "no stream".
    expect(await transport.reconnectToStream({ chatId: conversationKey })).toBeNull();

    const first = events(await stack.chat(secret, 'helper', { conversationKey, message: pausingTurn }, 'text/event-stream'));
    await readUntil(first, 'tool-output-available');
    const stream = await transport.reconnectToStream({ chatId: conversationKey });
    expect(stream).not.toBeNull();
    const chunks: UIMessageChunk[] = [];
    const reader = stream!.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    expect(chunks[0]?.type).toBe('start');
    expect(chunks.some((chunk) => chunk.type === 'tool-output-available')).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'completed' } });
    await readAll(first);
  });
});
