import type { NatsConnection } from '@nats-io/nats-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresInstalled } from '../cli/cluster/local-postgres.js';
import { startFixtureModel, type FixtureModelServer } from '../fixtures/model-server/fixture-model-server.js';
import { silentLogger } from '../server/core/logger.js';
import { connectNats } from '../server/nats/nats-connection.js';
import { natsAuthenticationOf, type NatsCredentialsView } from '../server/nats/nats-protocol.js';
import { findNatsServerBinary } from '../server/nats/nats-server-binary.js';
import { chatSubject, replayRequestSubject } from '../server/nats/nats-subjects.js';
import { requestJson } from './support/json-request.js';
import { finishStatus, TestInbox, textOf, type ReceivedChunk } from './support/nats-stack.js';
import { expectChunkStreamOnThreeServers } from './support/nats-cluster-stack.js';
import { startPlainNatsCluster, type PlainNatsCluster } from './support/plain-nats-cluster.js';
import { startRecordingWorker } from './support/recording-worker.js';
import { type ReplicaSetInSchema, startReplicaSetInSchema, waitForNats } from './support/replica-set.js';
import { postgresForThisFile } from './support/test-postgres.js';

/**
 * Three `harness serve` replicas on PostgreSQL, in front of a NATS cluster started the way an
 * operator (or a test author) starts one by hand: three plain `nats-server -js --cluster ...`
 * processes, no operator JWTs, no WebSocket, first without authentication, then with a token
 * (`--auth`, given to the replicas as `NATS_TOKEN`). Each replica lists the servers in another
 * order. NATS clients reach the replicas only through the cluster.
 */
const modelKey = 'sk-plain-cluster-key-0123456789';
const postgres = postgresForThisFile();

type RecordingWorker = Awaited<ReturnType<typeof startRecordingWorker>>;

interface PlainSet {
  nats: PlainNatsCluster;
  replicas: ReplicaSetInSchema;
  secret: string;
  accountId: string;
  credentials: NatsCredentialsView;
  connections: NatsConnection[];
  connect(url: string): Promise<NatsConnection>;
}

beforeAll(async () => {
  // Missing binaries fail the test with how to install them, rather than skip it.
  await findNatsServerBinary();
  if (!postgresInstalled()) throw new Error("This test needs PostgreSQL: install Debian's postgresql package (apt-get install -y postgresql) or set HARNESS_POSTGRES_BIN.");
});

/** The servers rotated by `index`: each replica lists them in another order. */
function rotated(urls: string[], index: number): string {
  return [...urls.slice(index), ...urls.slice(0, index)].join(',');
}

/** A plain cluster, 3 replicas on it, an account made through replica 0 and agents through replica 1. */
async function startPlainSet(options: { token?: string; model: FixtureModelServer; workerUrl: string }): Promise<PlainSet> {
  const nats = await startPlainNatsCluster({ size: 3, ...(options.token === undefined ? {} : { token: options.token }) });
  let replicas: ReplicaSetInSchema | undefined;
  try {
    // debug: each replica logs the turns its gateway takes ("NATS turn started").
    replicas = await startReplicaSetInSchema(
      postgres.admin,
      3,
      { ENABLE_WEBSOCKET: 'true', LOG_LEVEL: 'debug', ...(options.token === undefined ? {} : { NATS_TOKEN: options.token }) },
      (index) => ({ NATS_URL: rotated(nats.urls, index) }),
    );
    for (const replica of replicas.replicas) await waitForNats(replica.agentUrl);
    const [first, second, third] = replicas.replicas as [ReplicaSetInSchema['replicas'][number], ReplicaSetInSchema['replicas'][number], ReplicaSetInSchema['replicas'][number]];
    const account = await requestJson(`${first.accountUrl}/accounts`, { method: 'POST', body: { username: 'plain-cluster-user', description: 'made through replica 0' } });
    expect(account.status).toBe(201);
    const secret = String(account.body.secret);
    const provider = { openai: { apiKey: modelKey, baseURL: options.model.baseURL, model: 'fixture-model', api: 'responses' } };
    expect((await requestJson(`${second.accountUrl}/accounts/me/agents/echo`, { method: 'PUT', secret, body: { config: { provider } } })).status).toBe(201);
    const dispatcher = await requestJson(`${second.accountUrl}/accounts/me/agents/dispatcher`, {
      method: 'PUT',
      secret,
      // The worker completes at replica 2: the continuation is settled away from the replica that ran the turn (most of the time).
      body: { config: { provider, tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: third.agentUrl, completionBearerToken: secret, workerUrl: options.workerUrl } } } },
    });
    expect(dispatcher.status).toBe(201);
    const credentials = await requestJson<NatsCredentialsView>(`${third.accountUrl}/accounts/me/nats`, { secret });
    expect(credentials.status).toBe(200);
    const connections: NatsConnection[] = [];
    const view = credentials.body;
    return {
      nats,
      replicas,
      secret,
      accountId: String(account.body.accountId),
      credentials: view,
      connections,
      async connect(url) {
        const connection = await connectNats({ url, ...natsAuthenticationOf(view, options.token), inboxPrefix: view.inboxPrefix, name: 'plain-cluster-client', logger: silentLogger });
        connections.push(connection);
        return connection;
      },
    };
  } catch (error) {
    await replicas?.close();
    await nats.stop();
    throw error;
  }
}

async function stopPlainSet(set: PlainSet | undefined): Promise<void> {
  await Promise.allSettled(set?.connections.map((connection) => connection.close()) ?? []);
  await set?.replicas.close();
  await set?.nats.stop();
}

/** Runs `count` NATS turns, each from a client of another server, and returns their answers. */
async function runTurns(set: PlainSet, count: number, prefix: string): Promise<ReceivedChunk[][]> {
  const clients = await Promise.all(set.nats.urls.map((url) => set.connect(url)));
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const inbox = new TestInbox(clients[index % clients.length]!, set.credentials.inboxPrefix);
      await inbox.request(chatSubject(set.accountId, 'echo'), set.secret, { conversationKey: `${prefix}-${index}`, message: `${prefix} turn ${index}` });
      const answer = await inbox.untilFinal();
      inbox.close();
      return answer;
    }),
  );
}

function turnIdOf(answer: ReceivedChunk[]): string {
  const finish = answer.findLast((message) => message.chunk?.type === 'finish')?.chunk as { messageMetadata?: { turnId?: string } } | undefined;
  return String(finish?.messageMetadata?.turnId);
}

/** A plain set for the tests of the describe that calls this, on a schema, model and worker of its own: started before them, stopped after. */
function plainSetForTests(token?: string): { readonly set: PlainSet; readonly worker: RecordingWorker } {
  let model: FixtureModelServer | undefined;
  let worker: RecordingWorker | undefined;
  let set: PlainSet | undefined;
  beforeAll(async () => {
    model = await startFixtureModel({ apiKey: modelKey });
    worker = await startRecordingWorker();
    set = await startPlainSet({ token, model, workerUrl: worker.dispatchUrl });
  }, 90_000);
  afterAll(async () => {
    await stopPlainSet(set);
    await worker?.close();
    await model?.close();
  }, 60_000);
  return {
    get set() {
      return set!;
    },
    get worker() {
      return worker!;
    },
  };
}

describe('3 harness serve replicas on a plain 3-server NATS cluster without authentication', () => {
  const plain = plainSetForTests();

  it('hands clients the cluster without credentials of its own: the URLs, the inbox, authentication "none"', () => {
    expect(plain.set.credentials).toMatchObject({ authentication: 'none', websocketUrl: null, user: null, password: null, jwt: null, inboxPrefix: `_INBOX.${plain.set.accountId}` });
    expect(plain.set.credentials.url!.split(',').sort()).toEqual([...plain.set.nats.urls].sort());
  });

  it('answers NATS turns through the queue group, on more than one replica, and keeps their chunks on 3 servers', async () => {
    const answers = await runTurns(plain.set, 12, 'shared');
    answers.forEach((answer, index) => {
      expect(finishStatus(answer)).toBe('completed');
      expect(textOf(answer)).toBe(`Echo: shared turn ${index}`);
      expect(answer.every((message) => message.sequence !== undefined)).toBe(true);
    });
    // Which replica took each turn: the one whose log names it. Each turn is taken by exactly one; a
    // queue group picks at random, so 12 turns all on one of three replicas has odds of 1 in 177,147.
    const served = plain.set.replicas.replicas.map((replica) => {
      const started = replica
        .output()
        .split('\n')
        .filter((line) => line.includes('NATS turn started'));
      return answers.filter((answer) => started.some((line) => line.includes(turnIdOf(answer)))).length;
    });
    expect(served.reduce((sum, count) => sum + count, 0)).toBe(answers.length);
    expect(served.filter((count) => count > 0).length).toBeGreaterThan(1);
    await expectChunkStreamOnThreeServers({ url: plain.set.nats.urls.join(',') });
  });

  it('replays a finished turn through the cluster, from a client of another server', async () => {
    const [live] = await runTurns(plain.set, 1, 'replayed');
    for (const url of plain.set.nats.urls) {
      const inbox = new TestInbox(await plain.set.connect(url), plain.set.credentials.inboxPrefix);
      await inbox.request(replayRequestSubject(plain.set.accountId, 'echo'), plain.set.secret, { conversationKey: 'replayed-0', afterSequence: 0 });
      const replayed = await inbox.untilReplayEnd();
      inbox.close();
      expect(replayed.slice(0, -1)).toEqual(live);
      expect(replayed.at(-1)?.replayEnd).toBe(live!.at(-1)!.sequence);
    }
  });

  it('streams the continuation of an async tool started by a NATS turn to the client inbox, whichever replica settles it', async () => {
    const connection = await plain.set.connect(plain.set.nats.urls.join(','));
    const inbox = new TestInbox(connection, plain.set.credentials.inboxPrefix);
    await inbox.request(chatSubject(plain.set.accountId, 'dispatcher'), plain.set.secret, { conversationKey: 'dispatch', message: 'call test_external_async {"task":"plain"}' });
    const first = await inbox.untilFinish();
    expect(finishStatus(first)).toBe('waiting_async_tools');
    await expect.poll(() => plain.worker.dispatches.length).toBe(1);

    const completed = await plain.worker.complete(plain.worker.dispatches[0]!, { status: 'completed', response: { answer: 42 } });
    expect(completed).toMatchObject({ status: 202, body: { continuation: 'accepted' } });
    const continuation = await inbox.untilFinal();
    inbox.close();
    expect(continuation[0]?.chunk).toMatchObject({ type: 'start' });
    expect(continuation.some((message) => message.chunk?.type === 'data-async-tool-settled')).toBe(true);
    expect(finishStatus(continuation)).toBe('completed');
    expect(textOf(continuation)).toContain('"answer":42');
    expect(continuation[0]?.turnId).not.toBe(first[0]?.turnId);
  });
});

describe('3 harness serve replicas on a plain 3-server NATS cluster with a token (--auth, NATS_TOKEN)', () => {
  const token = 'plain-cluster-token-0123456789';
  const plain = plainSetForTests(token);

  it('says the token is the operator’s to hand out, and a client with it runs and replays turns served by the replicas', async () => {
    expect(plain.set.credentials).toMatchObject({ authentication: 'token', user: null, password: null, jwt: null });
    expect(JSON.stringify(plain.set.credentials)).not.toContain(token);
    const answers = await runTurns(plain.set, 6, 'token');
    answers.forEach((answer, index) => expect(textOf(answer)).toBe(`Echo: token turn ${index}`));
    await expectChunkStreamOnThreeServers({ url: plain.set.nats.urls.join(','), token });

    const inbox = new TestInbox(await plain.set.connect(plain.set.nats.urls[2]!), plain.set.credentials.inboxPrefix);
    await inbox.request(replayRequestSubject(plain.set.accountId, 'echo'), plain.set.secret, { conversationKey: 'token-0', afterSequence: 0 });
    const replayed = await inbox.untilReplayEnd();
    inbox.close();
    expect(replayed.slice(0, -1)).toEqual(answers[0]);
  });
});
