import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { startRecordingWorker } from './support/recording-worker.js';
import { collectChunks } from './support/sse-chunks.js';
import { waitUntil } from './support/wait-until.js';

/** What one request got back: status, headers and the body as text (compared byte for byte between a request and its retry). */
interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

async function send(url: string, secret: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${secret}`, ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe('Idempotency-Key', () => {
  let stack: ChatStack;
  let secret: string;
  let other: string;
  let counter = 0;
  const fresh = (what: string) => `${what}-${(counter += 1)}`;
  const chatUrl = (agentId = 'helper') => `${stack.agentUrl}/agents/${agentId}/chat`;
  const asyncUrl = () => `${stack.agentUrl}/agents/helper/async`;
  const cronUrl = () => `${stack.accountUrl}/accounts/me/cron-jobs`;
  const idle = () => stack.core.asyncWorker.idle();

  beforeAll(async () => {
    stack = await startChatStack();
    secret = (await stack.createAccount('retrier')).secret;
    other = (await stack.createAccount('someone-else')).secret;
    await stack.putAgent(secret, 'helper', { provider: stack.provider() });
    await stack.putAgent(other, 'helper', { provider: stack.provider() });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('a JSON chat retried with the same key and body gets the same answer and eventId, and the model is called once', async () => {
    const key = fresh('chat');
    const body = { conversationKey: fresh('conversation'), message: 'hello once' };
    const before = stack.model.callCount();
    const first = await send(chatUrl(), secret, body, { 'idempotency-key': key });
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ status: 'completed', text: 'Echo: hello once' });
    const eventId = first.headers.get('x-harness-event-id');
    expect(eventId).toBeTruthy();
    // The same body with its keys in another order is the same request.
    const retry = await send(chatUrl(), secret, { message: body.message, conversationKey: body.conversationKey }, { 'idempotency-key': key });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('x-harness-event-id')).toBe(eventId);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(stack.model.callCount() - before).toBe(1);
    const stored = await fetch(`${stack.agentUrl}/agents/helper/conversations/${body.conversationKey}`, { headers: { authorization: `Bearer ${secret}` } });
    expect(((await stored.json()) as { messages: unknown[] }).messages).toHaveLength(2);
  });

  it('the same key with another body is a 422 idempotency_key_reused and changes nothing', async () => {
    const key = fresh('chat');
    const conversationKey = fresh('conversation');
    expect((await send(chatUrl(), secret, { conversationKey, message: 'first' }, { 'idempotency-key': key })).status).toBe(200);
    const before = stack.model.callCount();
    const reused = await send(chatUrl(), secret, { conversationKey, message: 'second' }, { 'idempotency-key': key });
    expect(reused.status).toBe(422);
    expect(reused.json).toEqual({ error: { code: 'idempotency_key_reused', message: expect.stringContaining('Idempotency-Key') } });
    // Another agent (another path) with the key is another request too.
    await stack.putAgent(secret, 'second', { provider: stack.provider() });
    expect((await send(chatUrl('second'), secret, { conversationKey, message: 'first' }, { 'idempotency-key': key })).status).toBe(422);
    expect(stack.model.callCount()).toBe(before);
    const stored = await fetch(`${stack.agentUrl}/agents/helper/conversations/${conversationKey}`, { headers: { authorization: `Bearer ${secret}` } });
    expect(((await stored.json()) as { messages: unknown[] }).messages).toHaveLength(2);
  });

  it('keys are per account and per route', async () => {
    const key = fresh('shared');
    const body = { conversationKey: fresh('conversation'), message: 'mine' };
    const before = stack.model.callCount();
    const mine = await send(chatUrl(), secret, body, { 'idempotency-key': key });
    const theirs = await send(chatUrl(), other, body, { 'idempotency-key': key });
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    expect(theirs.headers.get('x-harness-event-id')).not.toBe(mine.headers.get('x-harness-event-id'));
    const queued = await send(asyncUrl(), secret, { conversationKey: fresh('conversation'), message: 'queued' }, { 'idempotency-key': key });
    expect(queued.status).toBe(202);
    await idle();
    expect(stack.model.callCount() - before).toBe(3);
  });

  it('a JSON chat retried while the first still runs waits for it and gets its answer', async () => {
    const key = fresh('chat');
    const body = { conversationKey: fresh('conversation'), message: 'slow: 300\nhello slowly' };
    const before = stack.model.callCount();
    const first = send(chatUrl(), secret, body, { 'idempotency-key': key });
    await waitUntil('the first model call', () => (stack.model.callCount() > before ? true : undefined), { intervalMs: 5 });
    const retry = await send(chatUrl(), secret, body, { 'idempotency-key': key });
    const answered = await first;
    expect([answered.status, retry.status]).toEqual([200, 200]);
    expect(retry.text).toBe(answered.text);
    expect(retry.headers.get('x-harness-event-id')).toBe(answered.headers.get('x-harness-event-id'));
    expect(stack.model.callCount() - before).toBe(1);
  });

  it('a malformed key is a 400 naming the header, and nothing runs', async () => {
    const before = stack.model.callCount();
    for (const key of ['x'.repeat(256), 'tab\there', 'é-accent']) {
      const answer = await send(chatUrl(), secret, { conversationKey: fresh('conversation'), message: 'hi' }, { 'idempotency-key': key });
      expect(answer.status, key).toBe(400);
      expect(answer.json).toMatchObject({ error: { code: 'invalid_request', message: expect.stringMatching(/idempotency-key/i) } });
    }
    expect(stack.model.callCount()).toBe(before);
    expect((await send(chatUrl(), secret, { conversationKey: fresh('conversation'), message: 'hi' }, { 'idempotency-key': 'x'.repeat(255) })).status).toBe(200);
  });

  it('a client error does not pin the key: the retry after the fix runs', async () => {
    const key = fresh('chat');
    const body = { conversationKey: fresh('conversation'), message: 'to a later agent' };
    const missing = await send(chatUrl('not-yet'), secret, body, { 'idempotency-key': key });
    expect(missing.status).toBe(404);
    await stack.putAgent(secret, 'not-yet', { provider: stack.provider() });
    const retry = await send(chatUrl('not-yet'), secret, body, { 'idempotency-key': key });
    expect(retry.status).toBe(200);
    expect(retry.json).toMatchObject({ text: 'Echo: to a later agent' });
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('/async retried gets the same 202 and eventId, and the turn runs once (also when the retry races the first)', async () => {
    const key = fresh('async');
    const body = { conversationKey: fresh('conversation'), message: 'in the background' };
    const before = stack.model.callCount();
    const [first, racing] = await Promise.all([send(asyncUrl(), secret, body, { 'idempotency-key': key }), send(asyncUrl(), secret, body, { 'idempotency-key': key })]);
    expect([first.status, racing.status]).toEqual([202, 202]);
    expect(racing.text).toBe(first.text);
    await idle();
    const retry = await send(asyncUrl(), secret, body, { 'idempotency-key': key });
    expect(retry.status).toBe(202);
    expect(retry.json.eventId).toBe(first.json.eventId);
    await idle();
    expect(stack.model.callCount() - before).toBe(1);
    const status = await fetch(String(first.json.statusUrl), { headers: { authorization: `Bearer ${secret}` } });
    expect(await status.json()).toMatchObject({ status: 'completed' });
  });

  it('a cron job created twice with one key is one job', async () => {
    const key = fresh('cron');
    const body = { name: 'nightly', agentId: 'helper', conversationKey: 'cron:nightly', prompt: 'Summarise.', scheduleExpression: 'cron(0 3 ? * MON-FRI *)' };
    const first = await send(cronUrl(), secret, body, { 'idempotency-key': key });
    expect(first.status, first.text).toBe(201);
    const retry = await send(cronUrl(), secret, body, { 'idempotency-key': key });
    expect(retry.status).toBe(201);
    expect(retry.json).toEqual(first.json);
    expect((await send(cronUrl(), secret, { ...body, name: 'another' }, { 'idempotency-key': key })).status).toBe(422);
    const list = await fetch(cronUrl(), { headers: { authorization: `Bearer ${secret}` } });
    const jobs = ((await list.json()) as { cronJobs: { name: string }[] }).cronJobs.filter((job) => job.name === 'nightly' || job.name === 'another');
    expect(jobs).toHaveLength(1);
  });

  it('a completion retried with its key gets the same 202 and settles once: one continuation', async () => {
    const worker = await startRecordingWorker();
    try {
      await stack.putAgent(secret, 'external', {
        provider: stack.provider(),
        tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: secret, workerUrl: worker.dispatchUrl } },
      });
      const turn = await send(chatUrl('external'), secret, { conversationKey: fresh('conversation'), message: 'call test_external_async {"task":"once"}' });
      expect(turn.json).toMatchObject({ status: 'waiting_async_tools' });
      const before = stack.model.callCount();
      const dispatch = await waitUntil('the dispatch', () => worker.dispatches[0]);
      const key = fresh('completion');
      const completion = { status: 'completed', response: { done: true } };
      const first = await send(dispatch.completeUrl, secret, completion, { 'idempotency-key': key });
      expect(first.status, first.text).toBe(202);
      expect(first.json).toMatchObject({ resultId: dispatch.resultId, continuation: 'accepted' });
      const retry = await send(dispatch.completeUrl, secret, completion, { 'idempotency-key': key });
      expect(retry.status).toBe(202);
      expect(retry.text).toBe(first.text);
      // Without the key, a second completion of a settled call is refused as ever.
      expect((await send(dispatch.completeUrl, secret, completion)).status).toBe(409);
      expect((await send(dispatch.completeUrl, secret, { status: 'failed', error: 'other' }, { 'idempotency-key': key })).status).toBe(422);
      await waitUntil('the continuation', async () => {
        const status = await fetch(String(turn.json.statusUrl), { headers: { authorization: `Bearer ${secret}` } });
        return ((await status.json()) as { status: string }).status === 'completed' ? true : undefined;
      });
      await idle();
      // The continuation's one model call.
      expect(stack.model.callCount() - before).toBe(1);
    } finally {
      await worker.close();
    }
  });

  it('a streamed chat retried with its key gets the same eventId and the same stream, and the model is called once', async () => {
    const key = fresh('stream');
    const body = JSON.stringify({ conversationKey: fresh('conversation'), message: 'stream it' });
    const stream = () => fetch(chatUrl(), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${secret}`, 'idempotency-key': key }, body });
    const before = stack.model.callCount();
    const first = await stream();
    const firstChunks = await collectChunks(first);
    expect(firstChunks.at(-1)).toMatchObject({ type: 'finish' });
    const retry = await stream();
    expect(retry.status).toBe(200);
    expect(retry.headers.get('content-type')).toContain('text/event-stream');
    expect(retry.headers.get('x-harness-event-id')).toBe(first.headers.get('x-harness-event-id'));
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await collectChunks(retry)).toEqual(firstChunks);
    expect(stack.model.callCount() - before).toBe(1);
  });

  it('a streamed chat retried while its turn runs gets the same eventId and the whole stream, live', async () => {
    const key = fresh('stream');
    const body = JSON.stringify({ conversationKey: fresh('conversation'), message: 'call test_async {"label":"live"}\nthen slow: 400' });
    await stack.putAgent(secret, 'tooled', { provider: stack.provider(), tools: { test_async: { durationMs: 5 } } });
    const stream = () => fetch(chatUrl('tooled'), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${secret}`, 'idempotency-key': key }, body });
    const before = stack.model.callCount();
    const first = await stream();
    expect(first.status).toBe(200);
    const firstChunks = collectChunks(first);
    const retry = await stream();
    expect(retry.status).toBe(200);
    expect(retry.headers.get('x-harness-event-id')).toBe(first.headers.get('x-harness-event-id'));
    const retryChunks = await collectChunks(retry);
    expect(retryChunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'completed' } });
    expect(retryChunks).toEqual(await firstChunks);
    // The tool call and the answer after it: the turn's two model calls, once.
    expect(stack.model.callCount() - before).toBe(2);
  });
});
