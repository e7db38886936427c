import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatStack, type ChatStack } from '../test/support/chat-stack.js';
import { ConversationBusyError, createHarnessClient, HarnessApiError, HarnessConnectionError, type HarnessClient, type HarnessUIMessageChunk } from './index.js';

/** The client against both real services on the fixture model. */
let stack: ChatStack;
let client: HarnessClient;

const collect = async (stream: AsyncIterable<HarnessUIMessageChunk>) => {
  const chunks: HarnessUIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
};
const textOf = (chunks: HarnessUIMessageChunk[]) => chunks.map((chunk) => (chunk.type === 'text-delta' ? chunk.delta : '')).join('');

beforeAll(async () => {
  stack = await startChatStack();
  const anonymous = createHarnessClient({ accountUrl: stack.accountUrl, agentUrl: stack.agentUrl });
  const account = await anonymous.accounts.signup({ username: 'client-user', description: 'the client tests' });
  client = anonymous.withSecret(account.secret);
  await client.agents.put('echo', { provider: stack.provider(), workspace: { notes: { path: 'notes', permissionMode: 'auto' } } });
});

afterAll(async () => {
  await stack.close();
});

describe('HarnessClient', () => {
  it('reads the account and edits agents', async () => {
    expect(await client.accounts.me()).toMatchObject({ username: 'client-user' });
    expect((await client.agents.list()).map((agent) => agent.agentId)).toEqual(['echo']);
    const patched = await client.agents.patch('echo', { system: 'Be brief.' });
    expect(patched.config).toMatchObject({ system: 'Be brief.' });
    await client.agents.put('spare', { provider: stack.provider() });
    await client.agents.delete('spare');
    await expect(client.agents.get('spare')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('streams a turn with its event and chunk ids, and resumes it from the last chunk (nothing left: undefined)', async () => {
    const stream = await client.chat.stream('echo', { conversationKey: 'streamed', message: 'hi there' });
    const chunks = await collect(stream);
    expect(chunks[0]).toMatchObject({ type: 'start', messageMetadata: { eventId: stream.eventId } });
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'completed' } });
    expect(textOf(chunks)).toBe('Echo: hi there');
    expect(await client.chat.resume('echo', 'streamed', { lastChunkId: stream.lastChunkId! })).toBeUndefined();
    const stored = await client.chat.conversation('echo', 'streamed');
    expect(stored.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('answers a turn as JSON with its event id', async () => {
    const answer = await client.chat.send('echo', { conversationKey: 'json', message: 'plain' });
    expect(answer).toMatchObject({ status: 'completed', text: 'Echo: plain', conversationKey: 'json' });
    expect(answer.eventId).toEqual(expect.any(String));
  });

  it('queues an async turn, waits for its status row, and sends the Idempotency-Key so a retry is the same request', async () => {
    const body = { conversationKey: 'background', message: 'later' };
    const first = await client.async.submit('echo', body, { idempotencyKey: 'submit-once' });
    const retry = await client.async.submit('echo', body, { idempotencyKey: 'submit-once' });
    expect(retry.eventId).toBe(first.eventId);
    const row = await client.async.wait(first.eventId, { intervalMilliseconds: 20, timeoutMilliseconds: 20_000 });
    expect(row).toMatchObject({ eventId: first.eventId, status: 'completed', result: { text: 'Echo: later' } });
    // Nothing runs any more: cancelling is the service's 409, typed.
    const refused = await client.cancel(first.eventId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HarnessApiError);
    expect(refused).toMatchObject({ status: 409, code: 'conflict', method: 'POST', path: `/status/${first.eventId}/cancel` });
  });

  it('creates, pauses, resumes, lists and deletes a cron job', async () => {
    const job = await client.cronJobs.create({ name: 'daily', agentId: 'echo', conversationKey: 'cron', prompt: 'Sum up.', scheduleExpression: 'cron(0 3 * * ? *)' });
    expect((await client.cronJobs.pause(job.cronJobId)).status).toBe('paused');
    expect((await client.cronJobs.resume(job.cronJobId)).status).toBe('active');
    expect(await client.cronJobs.runs(job.cronJobId)).toEqual([]);
    expect((await client.cronJobs.list()).map((entry) => entry.cronJobId)).toEqual([job.cronJobId]);
    await client.cronJobs.delete(job.cronJobId);
    expect(await client.cronJobs.list()).toEqual([]);
  });

  it('moves workspace files up and down as bytes', async () => {
    const bytes = new TextEncoder().encode('ünïcode notes\n');
    expect(await client.workspace.upload('echo', 'notes', 'day one/today.md', bytes)).toEqual({ path: 'day one/today.md', bytes: bytes.length });
    expect((await client.workspace.list('echo', 'notes')).files.map((file) => file.path)).toEqual(['day one/today.md']);
    expect(new TextDecoder().decode(await client.workspace.download('echo', 'notes', 'day one/today.md'))).toBe('ünïcode notes\n');
    await client.workspace.delete('echo', 'notes', 'day one/today.md');
    expect((await client.workspace.list('echo', 'notes')).files).toEqual([]);
  });

  it('reports token usage per agent and day', async () => {
    const report = await client.usage({ by: 'agent' });
    expect(report.usage.find((row) => row.agentId === 'echo')?.totalTokens).toBeGreaterThan(0);
  });

  it('says which async tool call does not exist', async () => {
    await expect(client.asyncTools.complete('res_missing', { status: 'failed', error: 'gone' })).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('HarnessClient errors', () => {
  it('types a 409 conversation_busy with the running event it names', async () => {
    const busy = createHarnessClient({
      baseUrl: 'http://harness.invalid',
      fetch: async () => new Response(JSON.stringify({ error: { code: 'conversation_busy', message: 'A turn is running.', eventId: 'evt_running' } }), { status: 409 }),
    });
    const error = await busy.chat.send('echo', { conversationKey: 'c', message: 'hi', busy: 'reject' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConversationBusyError);
    expect(error).toMatchObject({ status: 409, code: 'conversation_busy', eventId: 'evt_running', message: 'A turn is running.' });
  });

  it('keeps the Retry-After of a 429, and describes an answer that is not the error shape', async () => {
    const limited = createHarnessClient({ baseUrl: 'http://harness.invalid', fetch: async () => new Response('<h1>Too many</h1>', { status: 429, headers: { 'retry-after': '7' } }) });
    await expect(limited.accounts.me()).rejects.toMatchObject({ status: 429, code: 'http_error', retryAfterSeconds: 7, message: 'GET /accounts/me failed: <h1>Too many</h1>' });
  });

  it('sends the secret, the Idempotency-Key and JSON, to the service the call belongs to', async () => {
    const seen: { url: string; headers: Record<string, string>; body: unknown }[] = [];
    const recording = createHarnessClient({
      accountUrl: 'http://accounts.example/prefix',
      agentUrl: 'http://agents.example',
      secret: 'sk-test',
      fetch: async (input, init) => {
        seen.push({ url: String(input), headers: init?.headers as Record<string, string>, body: init?.body });
        return new Response(JSON.stringify({ eventId: 'evt_1', statusUrl: 'http://agents.example/status/evt_1' }), { status: 202 });
      },
    });
    await recording.async.submit('my agent', { conversationKey: 'k', message: 'hi' }, { idempotencyKey: 'key-1' });
    await recording.accounts.me();
    expect(seen[0]).toMatchObject({ url: 'http://agents.example/agents/my%20agent/async', body: '{"conversationKey":"k","message":"hi"}' });
    expect(seen[0]?.headers).toMatchObject({ authorization: 'Bearer sk-test', 'idempotency-key': 'key-1', 'content-type': 'application/json' });
    expect(seen[1]?.url).toBe('http://accounts.example/prefix/accounts/me');
  });

  it('is a connection error, with the system code, when nothing answers', async () => {
    // A port that was just listened on and closed: nothing answers there.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agentUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await new Promise((resolve) => server.close(resolve));
    const error = await createHarnessClient({ agentUrl })
      .async.status('evt_x')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HarnessConnectionError);
    expect(error).toMatchObject({ service: 'agent', baseUrl: agentUrl, code: 'ECONNREFUSED' });
  });
});
