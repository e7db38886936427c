/**
 * NATS chunks through the harness gateway against raw NATS publish/subscribe of the same
 * number of same-size messages, measured in one run on one nats-server:
 *
 * - gateway turn: a `long: 2000` turn on the zero-latency fixture model, requested on
 *   `harness.v1.<accountId>.<agentId>.chat`; chunks per second from the first to the last chunk;
 * - gateway publish path (what every chunk goes through: stored in the replay stream, then
 *   sent with its sequence): the same chunks, throughput and per-chunk latency;
 * - raw: the same payloads published on a plain subject, throughput and per-chunk latency;
 * - the publish path and raw again on a local 3-server cluster, where the chunk stream keeps
 *   3 replicas (every store is replicated before it is acknowledged).
 *
 * Throughput is measured over `publishChunks` chunks (the turn's chunks repeated), so the
 * pipelined stores reach a steady state; the target for the publish path is 0.3x raw.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInbox, headers as natsHeaders, type Msg, type NatsConnection } from '@nats-io/nats-core';
import { createOpenAI } from '@ai-sdk/openai';
import { streamText, toUIMessageStream, type UIMessageChunk } from 'ai';
import { startFixtureModel } from '../../fixtures/model-server/fixture-model-server.js';
import { silentLogger } from '../../server/core/logger.js';
import { connectNats } from '../../server/nats/nats-connection.js';
import { startNatsCluster } from '../../server/nats/nats-cluster.js';
import { startNatsServer } from '../../server/nats/nats-server-process.js';
import { ensureReplayStream } from '../../server/nats/stream-replay.js';
import { isFinalChunk } from '../../server/nats/nats-protocol.js';
import { chatSubject } from '../../server/nats/nats-subjects.js';
import { ChunkPublisher } from '../../server/nats/chunk-publisher.js';
import { serve } from '../../server/serve.js';

const modelKey = 'sk-bench-nats-0123456789abcdef';

export interface NatsBenchResult {
  chunks: number;
  meanChunkBytes: number;
  gatewayTurnChunksPerSecond: number;
  /** The same turn as a bare `streamText` in this process (no service, no NATS): what the model and the AI SDK allow. */
  bareModelTurnChunksPerSecond: number;
  gatewayPublishChunksPerSecond: number;
  rawChunksPerSecond: number;
  /** Median and 99th percentile of one chunk's trip, publisher to subscriber, in milliseconds. */
  gatewayLatencyMs: { p50: number; p99: number };
  rawLatencyMs: { p50: number; p99: number };
  /** Gateway turn chunks/s over raw chunks/s. */
  turnThroughputRatio: number;
  /** Gateway publish path chunks/s over raw chunks/s. */
  publishThroughputRatio: number;
  /** Gateway median latency over raw median latency. */
  latencyRatio: number;
  /** Chunks per throughput measurement of the publish path and raw. */
  publishChunks: number;
  /** The same on a 3-server cluster with a 3-replica chunk stream. */
  clusterPublishChunksPerSecond: number;
  clusterRawChunksPerSecond: number;
  clusterPublishThroughputRatio: number;
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

/** Resolves each time the subscription has received `count` more messages. */
function counter(connection: NatsConnection, subject: string): { arrivals: number[]; until(count: number): Promise<void>; unsubscribe(): void } {
  const arrivals: number[] = [];
  let waiting: { count: number; resolve: () => void } | undefined;
  const subscription = connection.subscribe(subject, {
    callback: () => {
      arrivals.push(performance.now());
      if (waiting && arrivals.length >= waiting.count) {
        const { resolve } = waiting;
        waiting = undefined;
        resolve();
      }
    },
  });
  return {
    arrivals,
    until: (count) => (arrivals.length >= count ? Promise.resolve() : new Promise((resolve) => (waiting = { count, resolve }))),
    unsubscribe: () => subscription.unsubscribe(),
  };
}

export async function runNatsBench(words = 2000, latencySamples = 500, publishChunks = 20_000): Promise<NatsBenchResult> {
  const dataDir = await mkdtemp(join(tmpdir(), 'harness-bench-nats-'));
  const model = await startFixtureModel({ apiKey: modelKey });
  const natsServer = await startNatsServer({ dataDir: join(dataDir, 'nats-bench'), stageSecret: randomBytes(32).toString('base64url'), logger: silentLogger });
  const services = await serve({ accountPort: 0, agentPort: 0, dataDir: join(dataDir, 'service'), logger: false, nats: { mode: 'external', url: natsServer.url, transport: 'tcp', jwt: natsServer.serviceCredentials.jwt, seed: natsServer.serviceCredentials.seed } });
  const connect = (name: string) => connectNats({ url: natsServer.url, ...natsServer.serviceCredentials, name, logger: silentLogger });
  const client = await connect('bench-client');
  const sender = await connect('bench-sender');
  try {
    const account = (await (await fetch(`${services.accountUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench', description: 'bench' }) })).json()) as { accountId: string; secret: string };
    await fetch(`${services.accountUrl}/accounts/me/agents/bench`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${account.secret}` },
      body: JSON.stringify({ config: { provider: { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } } } }),
    });
    for (let attempt = 0; (await (await fetch(services.agentUrl)).json() as { nats: string }).nats !== 'connected'; attempt += 1) {
      if (attempt > 200) throw new Error('the gateway never connected');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    // 1. A whole turn through the gateway (the client uses the account's inbox prefix).
    const runTurn = async (message: string): Promise<{ payloads: string[]; arrivals: number[] }> => {
      const reply = createInbox(`_INBOX.${account.accountId}`);
      const payloads: string[] = [];
      const arrivals: number[] = [];
      const done = new Promise<void>((resolve) => {
        client.subscribe(reply, {
          callback: (_error, received: Msg) => {
            arrivals.push(performance.now());
            payloads.push(received.string());
            if (isFinalChunk(received.json<UIMessageChunk>())) resolve();
          },
        });
      });
      const headers = natsHeaders();
      headers.set('Authorization', `Bearer ${account.secret}`);
      client.publish(chatSubject(account.accountId, 'bench'), JSON.stringify({ conversationKey: `bench-${message}-${Math.random()}`, message }), { reply, headers });
      await done;
      return { payloads, arrivals };
    };
    await runTurn('long: 50'); // warm-up
    const turn = await runTurn(`long: ${words}`);
    const chunks = turn.payloads.length;
    const gatewayTurnChunksPerSecond = (chunks - 1) / ((turn.arrivals.at(-1)! - turn.arrivals[0]!) / 1000);
    const meanChunkBytes = turn.payloads.reduce((sum, payload) => sum + Buffer.byteLength(payload), 0) / chunks;
    // The same turn without the service: the AI SDK reading the fixture model, every chunk taken.
    const openai = createOpenAI({ apiKey: modelKey, baseURL: model.baseURL });
    const bareTurn = async (): Promise<number> => {
      const result = streamText({ model: openai.chat('fixture'), messages: [{ role: 'user', content: `long: ${words}` }] });
      const times: number[] = [];
      for await (const _ of toUIMessageStream({ stream: result.stream })) times.push(performance.now());
      return (times.length - 1) / ((times.at(-1)! - times[0]!) / 1000);
    };
    await bareTurn();
    const bareModelTurnChunksPerSecond = await bareTurn();
    const chunkObjects = turn.payloads.map((payload) => JSON.parse(payload) as UIMessageChunk);

    // 2. The gateway's publish path with the same chunks, and 3. raw publish/subscribe of the same payloads.
    // Whole turns of the recorded chunks (each ending with its finish), back to back.
    const turnCount = Math.max(1, Math.round(publishChunks / chunks));
    const repeatedChunks = Array.from({ length: turnCount * chunks }, (_, index) => chunkObjects[index % chunks]!);
    const repeatedPayloads = repeatedChunks.map((chunk) => JSON.stringify(chunk));
    const target = (turnId: string, replySubject: string) => ({ replySubject, accountId: account.accountId, agentId: 'bench', conversationKey: 'bench-publish', turnId });
    const throughputs = (from: NatsConnection, to: NatsConnection) => {
      const publisher = new ChunkPublisher({ connection: () => from, ready: () => true, logger: silentLogger });
      const measure = async (send: (subject: string) => void): Promise<number> => {
        const subject = createInbox('_INBOX.bench');
        const received = counter(to, subject);
        await to.flush();
        const started = performance.now();
        send(subject);
        await received.until(repeatedChunks.length);
        received.unsubscribe();
        return repeatedChunks.length / ((performance.now() - started) / 1000);
      };
      return {
        publisher,
        gateway: () =>
          measure((subject) => {
            const turnIds = Array.from({ length: turnCount }, () => `turn_bench_${randomBytes(6).toString('hex')}`);
            repeatedChunks.forEach((chunk, index) => publisher.publish(target(turnIds[Math.floor(index / chunks)]!, subject), chunk));
          }),
        raw: () => measure((subject) => repeatedPayloads.forEach((payload) => from.publish(subject, payload))),
      };
    };
    const single = throughputs(sender, client);
    const publisher = single.publisher;
    const gatewayThroughput = single.gateway;
    const rawThroughput = single.raw;
    const latency = async (send: (subject: string, index: number) => void): Promise<number[]> => {
      const subject = createInbox('_INBOX.bench');
      const received = counter(client, subject);
      await client.flush();
      const samples: number[] = [];
      for (let index = 0; index < latencySamples; index += 1) {
        const started = performance.now();
        send(subject, index);
        await received.until(index + 1);
        samples.push(received.arrivals[index]! - started);
      }
      received.unsubscribe();
      return samples;
    };
    await gatewayThroughput(); // warm-up
    await rawThroughput();
    const gatewayPublishChunksPerSecond = await gatewayThroughput();
    const rawChunksPerSecond = await rawThroughput();

    // 4. The same on a 3-server cluster (chunk stream on 3 replicas): the sender on one server, the client on another.
    const clusterFolder = join(dataDir, 'cluster');
    const cluster = await startNatsCluster({ dataDir: clusterFolder, stageSecret: randomBytes(32).toString('base64url'), logger: silentLogger });
    let clusterPublishChunksPerSecond = 0;
    let clusterRawChunksPerSecond = 0;
    try {
      const [first, second] = cluster.url.split(',');
      const clusterSender = await connectNats({ url: first!, ...cluster.serviceCredentials, name: 'bench-cluster-sender', logger: silentLogger });
      const clusterClient = await connectNats({ url: second!, ...cluster.serviceCredentials, name: 'bench-cluster-client', logger: silentLogger });
      try {
        await ensureReplayStream(clusterSender);
        const clustered = throughputs(clusterSender, clusterClient);
        await clustered.gateway(); // warm-up
        await clustered.raw();
        clusterPublishChunksPerSecond = await clustered.gateway();
        clusterRawChunksPerSecond = await clustered.raw();
      } finally {
        await Promise.allSettled([clusterSender.close(), clusterClient.close()]);
      }
    } finally {
      await cluster.stop();
    }
    const latencyTurn = `turn_bench_${randomBytes(6).toString('hex')}`;
    const gatewaySamples = await latency((subject, index) => publisher.publish(target(latencyTurn, subject), chunkObjects[index % chunks]!));
    const rawSamples = await latency((subject, index) => sender.publish(subject, turn.payloads[index % chunks]!));
    const result: NatsBenchResult = {
      chunks,
      meanChunkBytes,
      gatewayTurnChunksPerSecond,
      bareModelTurnChunksPerSecond,
      gatewayPublishChunksPerSecond,
      rawChunksPerSecond,
      gatewayLatencyMs: { p50: percentile(gatewaySamples, 0.5), p99: percentile(gatewaySamples, 0.99) },
      rawLatencyMs: { p50: percentile(rawSamples, 0.5), p99: percentile(rawSamples, 0.99) },
      turnThroughputRatio: gatewayTurnChunksPerSecond / rawChunksPerSecond,
      publishThroughputRatio: gatewayPublishChunksPerSecond / rawChunksPerSecond,
      latencyRatio: percentile(gatewaySamples, 0.5) / percentile(rawSamples, 0.5),
      publishChunks: turnCount * chunks,
      clusterPublishChunksPerSecond,
      clusterRawChunksPerSecond,
      clusterPublishThroughputRatio: clusterPublishChunksPerSecond / clusterRawChunksPerSecond,
    };
    console.log(`nats: ${chunks} chunks of ${meanChunkBytes.toFixed(0)} bytes on average (a long: ${words} turn, zero-latency fixture model)`);
    console.log(`  gateway turn:         ${gatewayTurnChunksPerSecond.toFixed(0)} chunks/s (model, AI SDK, turn runner, replay store, publish); the same turn as a bare streamText here: ${bareModelTurnChunksPerSecond.toFixed(0)} chunks/s (${(gatewayTurnChunksPerSecond / bareModelTurnChunksPerSecond).toFixed(2)}x)`);
    console.log(`  gateway publish path: ${gatewayPublishChunksPerSecond.toFixed(0)} chunks/s, latency p50 ${result.gatewayLatencyMs.p50.toFixed(3)} ms, p99 ${result.gatewayLatencyMs.p99.toFixed(3)} ms`);
    console.log(`  raw publish/subscribe: ${rawChunksPerSecond.toFixed(0)} chunks/s, latency p50 ${result.rawLatencyMs.p50.toFixed(3)} ms, p99 ${result.rawLatencyMs.p99.toFixed(3)} ms`);
    console.log(`  3-server cluster, chunk stream on 3 replicas: publish path ${clusterPublishChunksPerSecond.toFixed(0)} chunks/s, raw ${clusterRawChunksPerSecond.toFixed(0)} chunks/s, ${result.clusterPublishThroughputRatio.toFixed(3)}x`);
    console.log(`  (publish path and raw measured over ${turnCount * chunks} chunks each, ${turnCount} turns back to back, to the last finish; target publish path/raw >= 0.3x)`);
    console.log(`  ratios: turn/raw throughput ${result.turnThroughputRatio.toFixed(3)}x, publish path/raw throughput ${result.publishThroughputRatio.toFixed(3)}x, latency p50 gateway/raw ${result.latencyRatio.toFixed(2)}x`);
    return result;
  } finally {
    await Promise.allSettled([client.close(), sender.close()]);
    await services.close();
    await natsServer.stop();
    await model.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runNatsBench();
}
