import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureModel, type FixtureModelServer } from '../fixtures/model-server/fixture-model-server.js';
import { startReplicaSet, type ReplicaSet } from './support/replica-set.js';
import { uiChunkStream } from './support/sse-chunks.js';
import { postgresForThisFile, randomSchemaName } from './support/test-postgres.js';

const modelKey = 'sk-cancel-replicas-key-0123456789';
const postgres = postgresForThisFile();

async function call<T>(url: string, secret: string | undefined, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<{ status: number; body: T }> {
  const response = await fetch(url, { method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(secret ? { authorization: `Bearer ${secret}` } : {}) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, attempts = 600): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/**
 * Two `harness serve` processes on one PostgreSQL: a turn that runs in one is cancelled
 * through the other. The renewal poll is set to a minute, so the cancel can only arrive by
 * the notification; a second pair of tests cancels with the notification lost (poll only).
 */
describe('cancel across replicas', () => {
  let schema = '';
  let set: ReplicaSet;
  let model: FixtureModelServer;
  let secret = '';
  let keys = 0;
  const nextKey = () => `replica-cancel-${(keys += 1)}`;

  beforeAll(async () => {
    schema = randomSchemaName();
    const url = await postgres.admin.createSchema(schema);
    model = await startFixtureModel({ apiKey: modelKey, chunkDelayMs: 20 });
    set = await startReplicaSet(url, 2, { HARNESS_CANCEL_POLL_MS: '60000' });
    const created = await call<{ secret: string }>(`${set.replicas[0]!.accountUrl}/accounts`, undefined, { username: 'replicated', description: 'cancel' });
    secret = created.body.secret;
    const provider = { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } };
    expect((await call(`${set.replicas[0]!.accountUrl}/accounts/me/agents/talker`, secret, { config: { provider } }, 'PUT')).status).toBeLessThan(300);
  }, 120_000);
  afterAll(async () => {
    await set?.close();
    await model?.close();
    if (schema) await postgres.admin.dropSchema(schema);
  }, 120_000);

  it('an SSE turn running in replica 0 is cancelled through replica 1 (by the notification)', async () => {
    const key = nextKey();
    const response = await fetch(`${set.replicas[0]!.agentUrl}/agents/talker/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}`, accept: 'text/event-stream' },
      body: JSON.stringify({ conversationKey: key, message: 'long: 500' }),
    });
    const reader = uiChunkStream(response).getReader();
    const chunks: UIMessageChunk[] = [];
    while (chunks.filter((chunk) => chunk.type === 'text-delta').length < 5) chunks.push((await reader.read()).value!);
    const cancel = await call<{ state: string; turnId: string }>(`${set.replicas[1]!.agentUrl}/agents/talker/conversations/${key}/cancel`, secret, {});
    expect(cancel.status).toBe(202);
    expect(cancel.body).toMatchObject({ state: 'running', turnId: expect.stringMatching(/^turn_/) });
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'cancelled' } });
    const streamed = chunks
      .filter((chunk) => chunk.type === 'text-delta')
      .map((chunk) => (chunk as { delta: string }).delta)
      .join('');
    const stored = await call<{ messages: { role: string; cancelled?: boolean; content: { text: string }[] }[] }>(`${set.replicas[1]!.agentUrl}/agents/talker/conversations/${key}`, secret);
    expect(stored.body.messages.at(-1)).toMatchObject({ role: 'assistant', cancelled: true });
    expect(stored.body.messages.at(-1)!.content.map((part) => part.text).join('')).toBe(streamed);
    expect((await call(`${set.replicas[0]!.agentUrl}/agents/talker/conversations/${key}/cancel`, secret, {})).status).toBe(409);
  });

  it('an /async request is cancelled by its event through the replica that does not run it', async () => {
    const key = nextKey();
    const submitted = await call<{ eventId: string }>(`${set.replicas[0]!.agentUrl}/agents/talker/async`, secret, { conversationKey: key, message: 'long: 500' });
    const { eventId } = submitted.body;
    await until('the turn to run', async () => ((await call<{ status: string }>(`${set.replicas[1]!.agentUrl}/status/${eventId}`, secret)).body.status === 'processing' ? true : undefined));
    // The replica whose process recorded the running turn; the cancel goes through the other one.
    const owner = await until('the turn to be recorded', async () => (await postgres.admin.query<{ owner: string }>(`SELECT owner FROM ${schema}.harness_running_turns WHERE event_id = $1`, [eventId]))[0]?.owner);
    const running = set.replicas.findIndex((replica) => owner.includes(`#${replica.child.pid}#`));
    expect(running).toBeGreaterThanOrEqual(0);
    const first = await call<{ state: string }>(`${set.replicas[1 - running]!.agentUrl}/status/${eventId}/cancel`, secret, {});
    expect(first.status).toBe(202);
    expect(first.body.state).toBe('running');
    const row = await until('the row to end', async () => {
      const current = await call<{ status: string }>(`${set.replicas[0]!.agentUrl}/status/${eventId}`, secret);
      return current.body.status === 'processing' ? undefined : current.body;
    });
    expect(row.status).toBe('cancelled');
  });
});

describe('cancel across replicas when the notification is lost', () => {
  let schema = '';
  let set: ReplicaSet;
  let model: FixtureModelServer;
  let secret = '';

  beforeAll(async () => {
    schema = randomSchemaName();
    const url = await postgres.admin.createSchema(schema);
    model = await startFixtureModel({ apiKey: modelKey, chunkDelayMs: 20 });
    set = await startReplicaSet(url, 2, { HARNESS_CANCEL_POLL_MS: '200' });
    secret = (await call<{ secret: string }>(`${set.replicas[0]!.accountUrl}/accounts`, undefined, { username: 'unheard', description: 'cancel' })).body.secret;
    const provider = { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } };
    await call(`${set.replicas[0]!.accountUrl}/accounts/me/agents/talker`, secret, { config: { provider } }, 'PUT');
  }, 120_000);
  afterAll(async () => {
    await set?.close();
    await model?.close();
    if (schema) await postgres.admin.dropSchema(schema);
  }, 120_000);

  it('a cancel request written without a notification is read at the next renewal', async () => {
    const key = 'unheard-1';
    const response = await fetch(`${set.replicas[0]!.agentUrl}/agents/talker/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}`, accept: 'text/event-stream' },
      body: JSON.stringify({ conversationKey: key, message: 'long: 500' }),
    });
    const reader = uiChunkStream(response).getReader();
    const chunks: UIMessageChunk[] = [];
    while (chunks.filter((chunk) => chunk.type === 'text-delta').length < 3) chunks.push((await reader.read()).value!);
    // The durable request alone, as a replica that died before its NOTIFY would leave it.
    const marked = await postgres.admin.query<{ turn_id: string }>(`UPDATE ${schema}.harness_running_turns SET cancel_requested_at = now() WHERE conversation_key = $1 RETURNING turn_id`, [key]);
    expect(marked).toHaveLength(1);
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'cancelled', turnId: marked[0]!.turn_id } });
    expect((await postgres.admin.query(`SELECT turn_id FROM ${schema}.harness_running_turns`)).length).toBe(0);
  });
});
