/**
 * Scale-out: `harness serve` child processes on one throwaway PostgreSQL (fsync on), each
 * part against a baseline measured in the same run.
 *
 * - turn: an SSE turn on PostgreSQL against the same turn on lowdb (one process each, the
 *   same fixture model; alternating rounds), time per turn at concurrency 1 (target ≤ 1.3x)
 *   and turns/s at 32;
 * - replicas: turns/s at concurrency 32 spread evenly over 3 replicas against the same on 1
 *   replica (both groups on the same database server, alternating rounds);
 * - completions: async-tool completions/s spread over 3 replicas against 1 replica, with
 *   completions of many groups interleaved, and with the 100 siblings of one group at once;
 * - cron: 10,000 active jobs on 3 replicas, 1,000 of them due at the same minute: the delay
 *   from the slot to its claim (p99 target ≤ 1 s), and that each slot fired once.
 *
 * This machine has 2 cores shared by the client, the fixture model, nats-less services and
 * PostgreSQL: 3 replicas cannot be 3x 1 replica here. What the figures show is whether
 * throughput holds when the same work goes through 3 processes sharing one database, and
 * that every replica does a share of it (CPU seconds per replica).
 */
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { UIMessageChunk } from 'ai';
import { requestUiMessageStream } from '../../cli/chat/ui-stream-reader.js';
import type { CronJobRecord, CronRunsRecord, CronTableRow } from '../../server/core/cron-jobs/cron-job.js';
import { defineInfrastructure } from '../../server/core/infrastructure.js';
import { PostgresStorage } from '../../server/core/storage/postgres/postgres-storage.js';
import { startPostgresServer, type PostgresServer } from '../../test/support/postgres-server.js';
import { benchModelKey, startBenchStack, startChild } from './bench-processes.js';
import { startReplicaGroup, stopChild, urlWithSchema, type ReplicaGroup } from './replica-processes.js';
import { throughput, timeSequential } from './turn.js';

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}

async function json(url: string, init: { method?: string; secret?: string; body?: unknown } = {}): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json', ...(init.secret ? { authorization: `Bearer ${init.secret}` } : {}) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${url}: ${response.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** An account and its agent `bench` on the fixture model, created through `accountUrl`; returns the secret. */
async function createBenchAgent(accountUrl: string, modelBaseURL: string, tools: Record<string, unknown> = {}): Promise<string> {
  const account = await json(`${accountUrl}/accounts`, { body: { username: `bench-${Math.random().toString(36).slice(2, 8)}`, description: 'bench' } });
  const secret = String(account.secret);
  await json(`${accountUrl}/accounts/me/agents/bench`, { method: 'PUT', secret, body: { config: { provider: { openai: { apiKey: benchModelKey, baseURL: modelBaseURL, model: 'fixture', api: 'chat' } }, tools } } });
  return secret;
}

/** One SSE turn on a new conversation, read with the CLI's reader, through `agentUrl`. */
async function sseTurn(agentUrl: string, secret: string, index: number): Promise<void> {
  const chunks = await requestUiMessageStream({ url: `${agentUrl}/agents/bench/chat`, secret, body: { conversationKey: `bench-${index}-${Math.random()}`, message: 'hello bench' } });
  let last: UIMessageChunk | undefined;
  for await (const chunk of chunks) last = chunk;
  if (last?.type !== 'finish') throw new Error(`the turn ended with ${JSON.stringify(last)}`);
}

async function createSchema(server: PostgresServer, schema: string): Promise<string> {
  const client = new pg.Client({ connectionString: server.adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await client.end();
  }
  return urlWithSchema(server.adminUrl, schema);
}

/** Transactions the server's database has committed and rolled back so far (`pg_stat_database`). */
async function databaseTransactions(server: PostgresServer): Promise<{ commits: number; rollbacks: number }> {
  const client = new pg.Client({ connectionString: server.adminUrl });
  await client.connect();
  try {
    const [row] = (await client.query<{ commits: string; rollbacks: string }>('SELECT xact_commit AS commits, xact_rollback AS rollbacks FROM pg_stat_database WHERE datname = current_database()')).rows;
    return { commits: Number(row?.commits ?? 0), rollbacks: Number(row?.rollbacks ?? 0) };
  } finally {
    await client.end();
  }
}

const spread = (cpu: number[]) => cpu.map((seconds) => seconds.toFixed(1)).join(' / ');
const minus = (after: number[], before: number[]) => after.map((value, index) => value - (before[index] ?? 0));

export interface ScaleOutBenchResult {
  turn: { lowdbMsPerTurn: number; postgresMsPerTurn: number; timeRatio: number; lowdbTurnsPerSecond32: number; postgresTurnsPerSecond32: number; throughputRatio: number };
  replicas: { oneReplicaTurnsPerSecond: number; threeReplicasTurnsPerSecond: number; ratio: number; cpuSecondsPerReplica: number[] };
  completions: {
    oneReplicaPerSecond: number;
    threeReplicasPerSecond: number;
    ratio: number;
    cpuSecondsOneReplica: number;
    cpuSecondsPerReplica: number[];
    /** Completions/s when the 100 siblings of one group all arrive at once. */
    burstOneReplicaPerSecond: number;
    burstThreeReplicasPerSecond: number;
  };
  cron: { jobs: number; dueAtOnce: number; claimed: number; firedTwice: number; delayMinMs: number; delayP50Ms: number; delayP99Ms: number; delayMaxMs: number; databaseCommits: number; databaseRollbacks: number };
  cores: number;
}

/** PostgreSQL against lowdb: one process each, the same model, alternating rounds. */
async function turnOnPostgres(server: PostgresServer): Promise<ScaleOutBenchResult['turn']> {
  const lowdb = await startBenchStack();
  const postgres = await startReplicaGroup(await createSchema(server, 'bench_turn'), 1);
  try {
    const postgresSecret = await createBenchAgent(postgres.replicas[0]!.accountUrl, lowdb.modelBaseURL);
    const onLowdb = (index: number) => sseTurn(lowdb.agentUrl, lowdb.secret, index);
    const onPostgres = (index: number) => sseTurn(postgres.replicas[0]!.agentUrl, postgresSecret, index);
    const sequential = await timeSequential(200, 10, onLowdb, onPostgres);
    const concurrent = await throughput(640, 4, 32, onLowdb, onPostgres);
    const result = {
      lowdbMsPerTurn: sequential.bare.mean,
      postgresMsPerTurn: sequential.harness.mean,
      timeRatio: sequential.harness.mean / sequential.bare.mean,
      lowdbTurnsPerSecond32: concurrent.bare,
      postgresTurnsPerSecond32: concurrent.harness,
      throughputRatio: concurrent.harness / concurrent.bare,
    };
    console.log('scale-out: an SSE turn on PostgreSQL vs on lowdb (one harness serve each, same fixture model, zero latency, alternating rounds)');
    console.log(`  concurrency 1, mean: lowdb ${result.lowdbMsPerTurn.toFixed(2)} ms/turn, PostgreSQL ${result.postgresMsPerTurn.toFixed(2)} ms/turn, ratio ${result.timeRatio.toFixed(2)}x (target <= 1.3x)`);
    console.log(`  concurrency 32: lowdb ${result.lowdbTurnsPerSecond32.toFixed(0)} turns/s, PostgreSQL ${result.postgresTurnsPerSecond32.toFixed(0)} turns/s, ratio ${result.throughputRatio.toFixed(2)}x`);
    return result;
  } finally {
    await postgres.close();
    await lowdb.close();
  }
}

/** Turns/s at concurrency 32 on one replica, and spread round-robin over three. */
async function turnsAcrossReplicas(server: PostgresServer, modelBaseURL: string): Promise<ScaleOutBenchResult['replicas']> {
  const one = await startReplicaGroup(await createSchema(server, 'bench_one'), 1);
  const three = await startReplicaGroup(await createSchema(server, 'bench_three'), 3);
  try {
    const oneSecret = await createBenchAgent(one.replicas[0]!.accountUrl, modelBaseURL);
    const threeSecret = await createBenchAgent(three.replicas[0]!.accountUrl, modelBaseURL);
    const cpuBefore = await three.cpuSeconds();
    const measured = await throughput(
      640,
      4,
      32,
      (index) => sseTurn(one.replicas[0]!.agentUrl, oneSecret, index),
      (index) => sseTurn(three.replicas[Math.abs(index) % 3]!.agentUrl, threeSecret, index),
    );
    const cpuSecondsPerReplica = minus(await three.cpuSeconds(), cpuBefore);
    const result = { oneReplicaTurnsPerSecond: measured.bare, threeReplicasTurnsPerSecond: measured.harness, ratio: measured.harness / measured.bare, cpuSecondsPerReplica };
    console.log('scale-out: SSE turns/s at concurrency 32, 1 replica vs 3 replicas on the same PostgreSQL (requests spread round-robin)');
    console.log(`  1 replica ${result.oneReplicaTurnsPerSecond.toFixed(0)} turns/s, 3 replicas ${result.threeReplicasTurnsPerSecond.toFixed(0)} turns/s, ratio ${result.ratio.toFixed(2)}x; CPU seconds per replica of 3: ${spread(cpuSecondsPerReplica)}`);
    return result;
  } finally {
    await Promise.all([one.close(), three.close()]);
  }
}

/** Completions/s of async tools, posted round-robin to every replica of a group. */
async function completionsAcrossReplicas(server: PostgresServer, modelBaseURL: string): Promise<ScaleOutBenchResult['completions']> {
  const dispatches: { completeUrl: string }[] = [];
  const worker = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      dispatches.push(JSON.parse(body) as { completeUrl: string });
      response.writeHead(202).end('{}');
    });
  });
  await new Promise<void>((resolve) => worker.listen(0, '127.0.0.1', resolve));
  const workerUrl = `http://127.0.0.1:${(worker.address() as { port: number }).port}/dispatch`;
  const groups: ReplicaGroup[] = [];
  try {
    groups.push(await startReplicaGroup(await createSchema(server, 'bench_completions_one'), 1));
    groups.push(await startReplicaGroup(await createSchema(server, 'bench_completions_three'), 3));
    const rates: number[] = [];
    const burstRates: number[] = [];
    const cpuSecondsPerReplica: number[][] = [];
    for (const group of groups) {
      const first = group.replicas[0]!;
      const account = await json(`${first.accountUrl}/accounts`, { body: { username: `bench-completions-${group.replicas.length}`, description: 'bench' } });
      const secret = String(account.secret);
      await json(`${first.accountUrl}/accounts/me/agents/bench`, {
        method: 'PUT',
        secret,
        body: { config: { provider: { openai: { apiKey: benchModelKey, baseURL: modelBaseURL, model: 'fixture', api: 'chat' } }, tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: first.agentUrl, completionBearerToken: secret, workerUrl } } } },
      });
      // Groups of 25 siblings, completions interleaved across groups (different async groups
      // settle at once, as with many users), 16 in flight, each on the replica whose turn it is.
      const interleaved = async (groups: number, prefix: string): Promise<string[]> => {
        const perGroup: string[][] = [];
        for (let index = 0; index < groups; index += 1) {
          dispatches.length = 0;
          await json(`${first.agentUrl}/agents/bench/chat`, { secret, body: { conversationKey: `${prefix}-${index}`, message: 'call x25 test_external_async {}' } });
          perGroup.push(dispatches.map((dispatch) => dispatch.completeUrl));
        }
        return perGroup[0]!.flatMap((_, sibling) => perGroup.map((siblings) => siblings[sibling]!));
      };
      const complete = async (urls: string[]): Promise<void> => {
        let next = 0;
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (next < urls.length) {
              const index = next++;
              const url = new URL(urls[index]!);
              url.host = new URL(group.replicas[index % group.replicas.length]!.agentUrl).host;
              await json(url.toString(), { secret, body: { status: 'completed', response: { ok: true } } });
            }
          }),
        );
      };
      // A warm-up of the same shape first: the turns above went through the first replica only,
      // and a replica's first completions open connections, prepare statements and compile code.
      await complete(await interleaved(12, 'warm-up'));
      const urls = await interleaved(24, 'completions');
      const cpuBefore = await group.cpuSeconds();
      const started = performance.now();
      await complete(urls);
      rates.push(urls.length / ((performance.now() - started) / 1000));
      cpuSecondsPerReplica.push(minus(await group.cpuSeconds(), cpuBefore));

      // The worst case for one group: all 100 siblings of a pass completed at the same moment
      // (every request in flight at once), spread round-robin; 5 rounds.
      let burstSeconds = 0;
      for (let round = 0; round < 5; round += 1) {
        dispatches.length = 0;
        const answer = await json(`${first.agentUrl}/agents/bench/chat`, { secret, body: { conversationKey: `burst-${round}`, message: 'call x100 test_external_async {}' } });
        const siblings = dispatches.map((dispatch) => dispatch.completeUrl);
        const burstStarted = performance.now();
        await Promise.all(
          siblings.map(async (completeUrl, index) => {
            const url = new URL(completeUrl);
            url.host = new URL(group.replicas[index % group.replicas.length]!.agentUrl).host;
            await json(url.toString(), { secret, body: { status: 'completed', response: { ok: true } } });
          }),
        );
        burstSeconds += (performance.now() - burstStarted) / 1000;
        // The continuation runs before the next round (and before the replicas stop).
        const statusUrl = new URL(String(answer.statusUrl));
        statusUrl.host = new URL(first.agentUrl).host;
        for (let waited = 0; (await json(statusUrl.toString(), { secret })).status !== 'completed'; waited += 50) {
          if (waited > 30_000) throw new Error(`the continuation of burst round ${round} did not complete`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      burstRates.push(500 / burstSeconds);
    }
    const result = {
      oneReplicaPerSecond: rates[0]!,
      threeReplicasPerSecond: rates[1]!,
      ratio: rates[1]! / rates[0]!,
      cpuSecondsOneReplica: cpuSecondsPerReplica[0]![0]!,
      cpuSecondsPerReplica: cpuSecondsPerReplica[1]!,
      burstOneReplicaPerSecond: burstRates[0]!,
      burstThreeReplicasPerSecond: burstRates[1]!,
    };
    console.log('scale-out: async-tool completions/s (16 concurrent, 600 completions of 24 groups), 1 replica vs 3 replicas');
    console.log(`  1 replica ${result.oneReplicaPerSecond.toFixed(0)}/s, 3 replicas ${result.threeReplicasPerSecond.toFixed(0)}/s, ratio ${result.ratio.toFixed(2)}x; CPU seconds: 1 replica ${result.cpuSecondsOneReplica.toFixed(1)}, each of 3 replicas ${spread(result.cpuSecondsPerReplica)}`);
    console.log('scale-out: the 100 siblings of one group completed all at once (5 rounds), 1 replica vs 3 replicas');
    console.log(`  1 replica ${result.burstOneReplicaPerSecond.toFixed(0)}/s, 3 replicas ${result.burstThreeReplicasPerSecond.toFixed(0)}/s, ratio ${(result.burstThreeReplicasPerSecond / result.burstOneReplicaPerSecond).toFixed(2)}x`);
    return result;
  } finally {
    await Promise.allSettled(groups.map((group) => group.close()));
    worker.close();
  }
}

/**
 * 10,000 jobs written straight into the database (as if created through the API earlier),
 * `dueAtOnce` of them due at the next whole minute far enough ahead for three replicas to
 * start and load them; the others hourly. The runs' agents do not exist, so a run fails at
 * once: what is measured is the scheduler (slot → claim), not model turns.
 */
async function cronOnReplicas(server: PostgresServer, jobs = 10_000, dueAtOnce = 1_000, accounts = 100): Promise<ScaleOutBenchResult['cron']> {
  const databaseUrl = await createSchema(server, 'bench_cron');
  const storage = new PostgresStorage({ connectionString: databaseUrl });
  const table = storage.table<CronTableRow>(defineInfrastructure('local').tables.cronJobs);
  let group: ReplicaGroup | undefined;
  try {
    await storage.ready();
    const slot = Math.ceil((Date.now() + 30_000) / 60_000) * 60_000;
    const createdAt = new Date().toISOString();
    const perAccount = jobs / accounts;
    const every = jobs / dueAtOnce;
    for (let account = 0; account < accounts; account += 1) {
      const operations = Array.from({ length: perAccount }, (_, offset) => {
        const index = account * perAccount + offset;
        const due = index % every === 0;
        const minute = new Date(slot).getUTCMinutes();
        const job: CronJobRecord = {
          kind: 'job',
          cronJobId: `cron_bench-${index}`,
          accountId: `acc_bench-${account}`,
          name: `bench job ${index}`,
          agentId: 'bench-agent',
          conversationKey: `cron:bench-${index}`,
          prompt: `benchmark prompt number ${index}`,
          scheduleExpression: due ? 'cron(* * * * ? *)' : `cron(${minute} * ? * * *)`,
          timezone: 'UTC',
          status: 'active',
          nextRunAt: new Date(due ? slot : slot + 3_600_000).toISOString(),
          lastRunAt: null,
          lastRunStatus: null,
          anchorAt: createdAt,
          lastFiredSlot: null,
          createdAt,
          updatedAt: createdAt,
        };
        return { type: 'put' as const, key: job.cronJobId, value: job as CronTableRow };
      });
      await table.write(`acc_bench-${account}`, operations);
    }
    // Each run fails at once (no such account) and logs a warning: errors only, or a thousand lines.
    group = await startReplicaGroup(databaseUrl, 3, { HARNESS_CRON_RESYNC_MS: '2000', LOG_LEVEL: 'error' });
    if (Date.now() > slot - 5_000) throw new Error('the replicas took too long to start for the chosen slot');
    const slotText = new Date(slot).toISOString();
    const runsOf = async (): Promise<CronRunsRecord[]> => {
      const partitions = await table.listPartitions();
      const rows = (await Promise.all(partitions.map((partition) => table.list(partition)))).flat();
      return rows.map((row) => row.value).filter((value): value is CronRunsRecord => value.kind === 'runs');
    };
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, slot - 2_000 - Date.now())));
    const transactionsBefore = await databaseTransactions(server);
    let runs: CronRunsRecord[] = [];
    const deadline = slot + 120_000;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(1_000, slot + 2_000 - Date.now())));
      runs = await runsOf();
      const claimed = runs.reduce((total, record) => total + record.runs.filter((run) => run.scheduledFor === slotText).length, 0);
      if (claimed >= dueAtOnce || Date.now() > deadline) break;
    }
    // Idle connections report their statistics within 10 s (PostgreSQL 15).
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    const transactionsAfter = await databaseTransactions(server);
    const ofSlot = runs.map((record) => record.runs.filter((run) => run.scheduledFor === slotText));
    const delays = ofSlot.flat().map((run) => Date.parse(run.startedAt) - slot);
    const result = {
      jobs,
      dueAtOnce,
      claimed: ofSlot.filter((list) => list.length > 0).length,
      firedTwice: ofSlot.filter((list) => list.length > 1).length,
      delayMinMs: delays.length > 0 ? Math.min(...delays) : 0,
      delayP50Ms: percentile(delays, 0.5),
      delayP99Ms: percentile(delays, 0.99),
      delayMaxMs: Math.max(0, ...delays),
      databaseCommits: transactionsAfter.commits - transactionsBefore.commits,
      databaseRollbacks: transactionsAfter.rollbacks - transactionsBefore.rollbacks,
    };
    console.log(`scale-out: cron, ${jobs} active jobs on 3 replicas, ${dueAtOnce} due at the same minute (slot -> claim, real clock)`);
    console.log(`  claimed ${result.claimed} of ${dueAtOnce}, ${result.firedTwice} fired twice; delay min ${result.delayMinMs} ms, p50 ${result.delayP50Ms} ms, p99 ${result.delayP99Ms} ms, max ${result.delayMaxMs} ms (target p99 <= 1000 ms)`);
    console.log(`  database transactions from 2 s before the slot until every slot was claimed (with the runs, resyncs and bench reads): ${result.databaseCommits} committed, ${result.databaseRollbacks} rolled back (a lost conditional batch rolls back)`);
    return result;
  } finally {
    await group?.close();
    await storage.close();
  }
}

/** The parts of the bench; `npx tsx scripts/bench/scale-out.ts completions cron` runs only those. */
export const scaleOutParts = ['turn', 'replicas', 'completions', 'cron'] as const;
export type ScaleOutPart = (typeof scaleOutParts)[number];

export async function runScaleOutBench(parts: readonly ScaleOutPart[] = scaleOutParts): Promise<Partial<ScaleOutBenchResult>> {
  const cores = (await import('node:os')).availableParallelism();
  console.log(`scale-out: ${cores} cores for the client, the fixture model, every replica and PostgreSQL together; 3 replicas share the cores 1 replica had, so expect about the same throughput, not 3x`);
  const server = await startPostgresServer();
  const model = await startChild(['fixtures/model-server/main.ts', '--api-key', benchModelKey, '--latency-ms', '0']);
  try {
    const modelBaseURL = model.ready.baseURL!;
    const result: Partial<ScaleOutBenchResult> = { cores };
    if (parts.includes('turn')) result.turn = await turnOnPostgres(server);
    if (parts.includes('replicas')) result.replicas = await turnsAcrossReplicas(server, modelBaseURL);
    if (parts.includes('completions')) result.completions = await completionsAcrossReplicas(server, modelBaseURL);
    if (parts.includes('cron')) result.cron = await cronOnReplicas(server);
    return result;
  } finally {
    await stopChild(model.child);
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((part) => !(scaleOutParts as readonly string[]).includes(part));
  if (unknown.length > 0) throw new Error(`unknown part(s) ${unknown.join(', ')}; choose from ${scaleOutParts.join(', ')}`);
  await runScaleOutBench(asked.length > 0 ? (asked as ScaleOutPart[]) : scaleOutParts);
}
