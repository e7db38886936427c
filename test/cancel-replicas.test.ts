import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureModel, type FixtureModelServer } from '../fixtures/model-server/fixture-model-server.js';
import { requestJson } from './support/json-request.js';
import { type ReplicaSetInSchema, startReplicaSetInSchema } from './support/replica-set.js';
import { uiChunkStream } from './support/sse-chunks.js';
import { postgresForThisFile } from './support/test-postgres.js';
import { waitUntil } from './support/wait-until.js';

const modelKey = 'sk-cancel-replicas-key-0123456789';
const postgres = postgresForThisFile();

/**
 * Two `harness serve` processes on a schema of their own, reading cancel requests at each lease
 * renewal every `cancelPollMs`, with an account and its agent `talker`: started before the tests
 * of the describe that calls this, stopped after them.
 */
function twoReplicas(username: string, cancelPollMs: number) {
  let set: ReplicaSetInSchema | undefined;
  let model: FixtureModelServer | undefined;
  let secret = '';
  beforeAll(async () => {
    model = await startFixtureModel({ apiKey: modelKey, chunkDelayMs: 20 });
    set = await startReplicaSetInSchema(postgres.admin, 2, { HARNESS_CANCEL_POLL_MS: String(cancelPollMs) });
    secret = (await requestJson<{ secret: string }>(`${set.replicas[0]!.accountUrl}/accounts`, { body: { username, description: 'cancel' } })).body.secret;
    const provider = { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } };
    expect((await requestJson(`${set.replicas[0]!.accountUrl}/accounts/me/agents/talker`, { method: 'PUT', secret, body: { config: { provider } } })).status).toBeLessThan(300);
  }, 120_000);
  afterAll(async () => {
    await set?.close();
    await model?.close();
  }, 120_000);
  return {
    get set() {
      return set!;
    },
    get secret() {
      return secret;
    },
  };
}

/** Starts an SSE turn of `talker` through `agentUrl` and reads it until `deltas` text deltas came; `rest` reads it to its end. */
async function streamTalker(agentUrl: string, secret: string, conversationKey: string, deltas: number) {
  const response = await fetch(`${agentUrl}/agents/talker/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}`, accept: 'text/event-stream' },
    body: JSON.stringify({ conversationKey, message: 'long: 500' }),
  });
  const reader = uiChunkStream(response).getReader();
  const chunks: UIMessageChunk[] = [];
  while (chunks.filter((chunk) => chunk.type === 'text-delta').length < deltas) chunks.push((await reader.read()).value!);
  const rest = async () => {
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  };
  return { chunks, rest };
}

/**
 * Two `harness serve` processes on one PostgreSQL: a turn that runs in one is cancelled
 * through the other. The renewal poll is set to a minute, so the cancel can only arrive by
 * the notification; a second pair of tests cancels with the notification lost (poll only).
 */
describe('cancel across replicas', () => {
  const replicas = twoReplicas('replicated', 60_000);
  let keys = 0;
  const nextKey = () => `replica-cancel-${(keys += 1)}`;

  it('an SSE turn running in replica 0 is cancelled through replica 1 (by the notification)', async () => {
    const { set, secret } = replicas;
    const key = nextKey();
    const { chunks, rest } = await streamTalker(set.replicas[0]!.agentUrl, secret, key, 5);
    const cancel = await requestJson<{ state: string; turnId: string }>(`${set.replicas[1]!.agentUrl}/agents/talker/conversations/${key}/cancel`, { secret, body: {} });
    expect(cancel.status).toBe(202);
    expect(cancel.body).toMatchObject({ state: 'running', turnId: expect.stringMatching(/^turn_/) });
    await rest();
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'cancelled' } });
    const streamed = chunks
      .filter((chunk) => chunk.type === 'text-delta')
      .map((chunk) => (chunk as { delta: string }).delta)
      .join('');
    const stored = await requestJson<{ messages: { role: string; cancelled?: boolean; content: { text: string }[] }[] }>(`${set.replicas[1]!.agentUrl}/agents/talker/conversations/${key}`, { secret });
    expect(stored.body.messages.at(-1)).toMatchObject({ role: 'assistant', cancelled: true });
    expect(stored.body.messages.at(-1)!.content.map((part) => part.text).join('')).toBe(streamed);
    expect((await requestJson(`${set.replicas[0]!.agentUrl}/agents/talker/conversations/${key}/cancel`, { secret, body: {} })).status).toBe(409);
  });

  it('an /async request is cancelled by its event through the replica that does not run it', async () => {
    const { set, secret } = replicas;
    const key = nextKey();
    const submitted = await requestJson<{ eventId: string }>(`${set.replicas[0]!.agentUrl}/agents/talker/async`, { secret, body: { conversationKey: key, message: 'long: 500' } });
    const { eventId } = submitted.body;
    await waitUntil('the turn to run', async () => ((await requestJson<{ status: string }>(`${set.replicas[1]!.agentUrl}/status/${eventId}`, { secret })).body.status === 'processing' ? true : undefined));
    // The replica whose process recorded the running turn; the cancel goes through the other one.
    const owner = await waitUntil('the turn to be recorded', async () => (await postgres.admin.query<{ owner: string }>(`SELECT owner FROM ${set.schema}.harness_running_turns WHERE event_id = $1`, [eventId]))[0]?.owner);
    const running = set.replicas.findIndex((replica) => owner.includes(`#${replica.child.pid}#`));
    expect(running).toBeGreaterThanOrEqual(0);
    const first = await requestJson<{ state: string }>(`${set.replicas[1 - running]!.agentUrl}/status/${eventId}/cancel`, { secret, body: {} });
    expect(first.status).toBe(202);
    expect(first.body.state).toBe('running');
    const row = await waitUntil('the row to end', async () => {
      const current = await requestJson<{ status: string }>(`${set.replicas[0]!.agentUrl}/status/${eventId}`, { secret });
      return current.body.status === 'processing' ? undefined : current.body;
    });
    expect(row.status).toBe('cancelled');
  });
});

describe('cancel across replicas when the notification is lost', () => {
  const replicas = twoReplicas('unheard', 200);

  it('a cancel request written without a notification is read at the next renewal', async () => {
    const { set, secret } = replicas;
    const key = 'unheard-1';
    const { chunks, rest } = await streamTalker(set.replicas[0]!.agentUrl, secret, key, 3);
    // The durable request alone, as a replica that died before its NOTIFY would leave it.
    const marked = await postgres.admin.query<{ turn_id: string }>(`UPDATE ${set.schema}.harness_running_turns SET cancel_requested_at = now() WHERE conversation_key = $1 RETURNING turn_id`, [key]);
    expect(marked).toHaveLength(1);
    await rest();
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'cancelled', turnId: marked[0]!.turn_id } });
    expect((await postgres.admin.query(`SELECT turn_id FROM ${set.schema}.harness_running_turns`)).length).toBe(0);
  });
});
