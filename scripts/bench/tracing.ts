/**
 * What tracing costs a turn: the same SSE turn against three services in their own processes,
 * measured in alternating rounds so all see the same machine:
 * - `off`: no OTLP endpoint, so no provider, no hooks, no spans (the default);
 * - `on`: `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at a tiny OTLP sink on loopback (spans
 *   batched and exported as protobuf, content recording off);
 * - `baseline` (with `--baseline <git ref>`): the code before tracing, extracted from git.
 * Target: `off` costs nothing measurable over the baseline (within the run-to-run noise).
 *
 *   npx tsx scripts/bench/tracing.ts [--baseline <git ref>] [--turns 300]
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { UIMessageChunk } from 'ai';
import { execa, type ResultPromise } from 'execa';
import { requestUiMessageStream } from '../../cli/chat/ui-stream-reader.js';
import { benchModelKey, startChild } from './bench-processes.js';

const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

interface Side {
  name: string;
  agentUrl: string;
  secret: string;
  close(): Promise<void>;
}

export interface TracingBenchSide {
  meanMsPerTurn: number;
  medianMsPerTurn: number;
  turnsPerSecond32: number;
}

export interface TracingBenchResult {
  sides: Record<string, TracingBenchSide>;
  /** Export requests and protobuf bytes the sink received from the `on` service. */
  exported: { requests: number; bytes: number };
}

/** An OTLP/HTTP endpoint that accepts every export and only counts it (no decoding). */
async function startOtlpSink(): Promise<{ endpoint: string; received: { requests: number; bytes: number }; close(): Promise<void> }> {
  const received = { requests: 0, bytes: 0 };
  const server = createServer((request, reply) => {
    request.on('data', (chunk: Buffer) => {
      received.bytes += chunk.length;
    });
    request.on('end', () => {
      received.requests += 1;
      reply.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** `git archive` of a ref into a temporary folder that shares this checkout's node_modules. */
async function extractRef(ref: string): Promise<{ folder: string; remove(): Promise<void> }> {
  const folder = await mkdtemp(join(tmpdir(), 'harness-bench-baseline-'));
  await promisify(execFile)('sh', ['-c', `git archive --format=tar "$1" | tar -x -C "$2"`, 'sh', ref, folder], { cwd: projectRoot });
  await symlink(join(projectRoot, 'node_modules'), join(folder, 'node_modules'));
  return { folder, remove: () => rm(folder, { recursive: true, force: true }) };
}

async function startService(name: string, root: string, modelBaseURL: string, environment: Record<string, string>): Promise<Side> {
  const dataDir = await mkdtemp(join(tmpdir(), 'harness-bench-'));
  await mkdir(dataDir, { recursive: true });
  const child: ResultPromise = execa('node', ['--import', 'tsx', 'cli/main.ts', 'serve', '--account-port', '0', '--agent-port', '0', '--data-dir', dataDir, '--json'], {
    cwd: root,
    env: { LOG_LEVEL: 'warn', ENABLE_WEBSOCKET: 'false', HARNESS_LIMIT_TURNS_PER_MINUTE: '1000000', HARNESS_LIMIT_CONCURRENT_TURNS: '1000', ...environment },
    // Not inherited: an empty value would still turn tracing on in the `off` and baseline services.
    extendEnv: false,
    reject: false,
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    void child.then((result) => reject(new Error(`${name} service exited (${result.exitCode})`)));
  });
  const { accountUrl, agentUrl } = JSON.parse(line) as { accountUrl: string; agentUrl: string };
  const account = (await (await fetch(`${accountUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench', description: 'bench' }) })).json()) as { secret: string };
  await fetch(`${accountUrl}/accounts/me/agents/bench`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${account.secret}` },
    body: JSON.stringify({ config: { provider: { openai: { apiKey: benchModelKey, baseURL: modelBaseURL, model: 'fixture', api: 'chat' } } } }),
  });
  return {
    name,
    agentUrl,
    secret: account.secret,
    close: async () => {
      child.kill('SIGTERM');
      await child;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function turn(side: Side, index: number): Promise<void> {
  const chunks = await requestUiMessageStream({ url: `${side.agentUrl}/agents/bench/chat`, secret: side.secret, body: { conversationKey: `bench-${index}-${Math.random()}`, message: 'hello bench' } });
  let last: UIMessageChunk | undefined;
  for await (const chunk of chunks) last = chunk;
  if (last?.type !== 'finish') throw new Error(`${side.name}: the turn ended with ${JSON.stringify(last)}`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function runTracingBench(options: { baselineRef?: string; turns?: number } = {}): Promise<TracingBenchResult> {
  const turns = options.turns ?? 300;
  const rounds = 10;
  const sink = await startOtlpSink();
  const model = await startChild(['fixtures/model-server/main.ts', '--api-key', benchModelKey, '--latency-ms', '0']);
  const baseline = options.baselineRef ? await extractRef(options.baselineRef) : undefined;
  const path = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  const sides: Side[] = [];
  try {
    const modelBaseURL = model.ready.baseURL!;
    sides.push(await startService('off', projectRoot, modelBaseURL, path));
    sides.push(await startService('on', projectRoot, modelBaseURL, { ...path, OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint }));
    if (baseline) sides.push(await startService('baseline', baseline.folder, modelBaseURL, path));
    for (const side of sides) for (let index = 0; index < 100; index += 1) await turn(side, -index - 1); // warm-up alike
    const samples = new Map(sides.map((side) => [side.name, [] as number[]]));
    const perRound = Math.ceil(turns / rounds);
    for (let round = 0; round < rounds; round += 1) {
      for (const side of sides) {
        for (let index = 0; index < perRound; index += 1) {
          const started = performance.now();
          await turn(side, round * perRound + index);
          samples.get(side.name)!.push(performance.now() - started);
        }
      }
    }
    const elapsed = new Map(sides.map((side) => [side.name, 0]));
    const concurrentPerRound = 160;
    for (let round = 0; round < 4; round += 1) {
      for (const side of sides) {
        let next = 0;
        const started = performance.now();
        await Promise.all(Array.from({ length: 32 }, async () => {
          while (next < concurrentPerRound) await turn(side, 100_000 + round * concurrentPerRound + next++);
        }));
        elapsed.set(side.name, elapsed.get(side.name)! + performance.now() - started);
      }
    }
    const result: TracingBenchResult = { sides: {}, exported: { ...sink.received } };
    for (const side of sides) {
      const values = samples.get(side.name)!;
      result.sides[side.name] = {
        meanMsPerTurn: values.reduce((total, value) => total + value, 0) / values.length,
        medianMsPerTurn: median(values),
        turnsPerSecond32: (concurrentPerRound * 4) / (elapsed.get(side.name)! / 1000),
      };
    }
    console.log(`tracing: one SSE turn, fixture model at 0 ms latency, services in alternating rounds (${turns} turns each at concurrency 1, ${concurrentPerRound * 4} at 32)`);
    for (const [name, side] of Object.entries(result.sides)) {
      console.log(`  ${name.padEnd(8)} mean ${side.meanMsPerTurn.toFixed(2)} ms/turn, median ${side.medianMsPerTurn.toFixed(2)} ms/turn, ${side.turnsPerSecond32.toFixed(0)} turns/s at 32`);
    }
    console.log(`  the sink received ${result.exported.requests} export requests, ${(result.exported.bytes / 1024).toFixed(0)} KiB of spans`);
    return result;
  } finally {
    for (const side of sides) await side.close();
    model.child.kill('SIGTERM');
    await model.child;
    await sink.close();
    await baseline?.remove();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argument = (name: string) => {
    const index = process.argv.indexOf(name);
    return index >= 0 ? process.argv[index + 1] : undefined;
  };
  const turns = argument('--turns');
  await runTracingBench({ baselineRef: argument('--baseline'), ...(turns ? { turns: Number(turns) } : {}) });
}
