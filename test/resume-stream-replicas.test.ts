import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureModel, type FixtureModelServer } from '../fixtures/model-server/fixture-model-server.js';
import { startFixtureSearch, type FixtureSearchServer } from '../fixtures/search-server/fixture-search-server.js';
import { silentLogger } from '../server/core/logger.js';
import { deriveNatsSecret } from '../server/nats/nats-service.js';
import { startNatsServer, type EmbeddedNatsServer } from '../server/nats/nats-server-process.js';
import { type ReplicaSetInSchema, startReplicaSetInSchema, waitForNats } from './support/replica-set.js';
import { events, pausingTurn, readAll, readUntil } from './support/sse-events.js';
import { temporaryFolder } from './support/temporary-folder.js';
import { postgresForThisFile } from './support/test-postgres.js';
import { testAdminSecret } from './support/test-services.js';

const modelKey = 'sk-resume-replicas-key-0123456789';
const searchKey = 'tvly-resume-replicas-key-0123456789';
const postgres = postgresForThisFile();

describe('resuming a stream through another replica (two harness serve processes, PostgreSQL, NATS)', () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let nats: EmbeddedNatsServer;
  let set: ReplicaSetInSchema;
  let model: FixtureModelServer;
  let search: FixtureSearchServer;
  let secret = '';

  beforeAll(async () => {
    folder = await temporaryFolder('harness-resume-replicas-');
    // The replicas connect to it as its operator's service user (the same admin secret signs both).
    nats = await startNatsServer({ dataDir: folder.path, stageSecret: deriveNatsSecret(testAdminSecret, 'stage-secret'), logger: silentLogger });
    model = await startFixtureModel({ apiKey: modelKey });
    search = await startFixtureSearch({ apiKey: searchKey });
    set = await startReplicaSetInSchema(postgres.admin, 2, { ENABLE_WEBSOCKET: 'true', NATS_URL: nats.url, NATS_AUTH: 'jwt', ALPHA_BASE_URL: search.baseURL });
    const created = await fetch(`${set.replicas[0]!.accountUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'resumer', description: 'replicas' }) });
    secret = ((await created.json()) as { secret: string }).secret;
    const agent = await fetch(`${set.replicas[0]!.accountUrl}/accounts/me/agents/helper`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ config: { provider: { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'responses' } }, tools: { alphaSearch: { apiKey: searchKey, maxResults: 1 } } } }),
    });
    expect(agent.status).toBeLessThan(300);
    // Both replicas' gateways are on NATS (their chunk log is the JetStream stream).
    for (const replica of set.replicas) await waitForNats(replica.agentUrl);
  }, 90_000);
  afterAll(async () => {
    await set?.close();
    await nats?.stop();
    await model?.close();
    await search?.close();
    await folder?.remove();
  });

  it('resumes on replica B a turn running on replica A, from a middle chunk id, without repeating anything', async () => {
    const conversationKey = 'across-replicas';
    const response = await fetch(`${set.replicas[0]!.agentUrl}/agents/helper/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ conversationKey, message: pausingTurn }),
    });
    expect(response.status).toBe(200);
    const first = events(response);
    const head = await readUntil(first, 'tool-output-available');
    await first.cancel();

    const resume = (lastEventId?: string) =>
      fetch(`${set.replicas[1]!.agentUrl}/agents/helper/conversations/${conversationKey}/stream`, {
        headers: { authorization: `Bearer ${secret}`, ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
      });
    const resumed = await resume(head.at(-1)!.id);
    expect(resumed.status).toBe(200);
    const rest = await readAll(events(resumed));
    expect(rest.at(-1)?.chunk).toBeUndefined(); // [DONE]
    const restChunks = rest.slice(0, -1);
    const seen = new Set(head.map((event) => event.id));
    expect(restChunks.some((event) => seen.has(event.id))).toBe(false);
    expect(restChunks.at(-1)?.chunk).toMatchObject({ type: 'finish', messageMetadata: { status: 'completed' } });
    expect(restChunks.flatMap((event) => (event.chunk?.type === 'text-delta' ? [event.chunk.delta] : [])).join('')).toContain('the rest of the answer');

    // The whole turn as replica B reads it after its end: the same ids and chunks the client had, then the rest.
    const whole = await readAll(events(await resume(head[0]!.id)));
    expect(whole.slice(0, -1)).toEqual([...head.slice(1), ...restChunks]);
    expect((await resume(restChunks.at(-1)!.id)).status).toBe(204);
    expect((await resume()).status).toBe(204);
  });
});
