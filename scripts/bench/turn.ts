/**
 * A harness SSE turn against a bare `streamText` call on the same fixture model (zero
 * latency), measured in one run: time per turn at concurrency 1, and throughput at 32.
 * Targets: ≤ 1.3× the bare time per turn (≤ 1.5× for issue 25), ≥ 0.85× the bare throughput
 * (the harness may cost little over the model call it wraps).
 */
import { performance } from 'node:perf_hooks';
import { createOpenAI } from '@ai-sdk/openai';
import { streamText, toUIMessageStream, type UIMessageChunk } from 'ai';
import { requestUiMessageStream } from '../../cli/chat/ui-stream-reader.js';
import { benchModelKey, processCpuMs, startBenchStack } from './bench-processes.js';

type Run = (index: number) => Promise<void>;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Time per turn at concurrency 1, bare and harness measured in alternating rounds so that
 * both see the same machine (this VM's speed drifts by 20-30% over tens of seconds). Returns
 * the mean and the median time of one turn, in ms.
 */
export async function timeSequential(turns: number, rounds: number, bare: Run, harness: Run): Promise<{ bare: { mean: number; median: number }; harness: { mean: number; median: number } }> {
  // Warm up both sides alike (JIT, connection pools, first-use paths) before measuring.
  for (let index = 0; index < 100; index += 1) {
    await bare(-index - 1);
    await harness(-index - 1);
  }
  const samples = { bare: [] as number[], harness: [] as number[] };
  const perRound = Math.ceil(turns / rounds);
  for (let round = 0; round < rounds; round += 1) {
    for (const [side, run] of [['bare', bare], ['harness', harness]] as const) {
      for (let index = 0; index < perRound; index += 1) {
        const started = performance.now();
        await run(round * perRound + index);
        samples[side].push(performance.now() - started);
      }
    }
  }
  const summary = (values: number[]) => ({ mean: values.reduce((total, value) => total + value, 0) / values.length, median: median(values) });
  return { bare: summary(samples.bare), harness: summary(samples.harness) };
}

/** Turns per second at a concurrency, bare and harness in alternating rounds. */
export async function throughput(turns: number, rounds: number, concurrency: number, bare: Run, harness: Run): Promise<{ bare: number; harness: number }> {
  const elapsed = { bare: 0, harness: 0 };
  const perRound = Math.ceil(turns / rounds);
  for (const run of [bare, harness]) await Promise.all(Array.from({ length: concurrency }, (_, index) => run(-1000 - index))); // warm-up at this concurrency
  for (let round = 0; round < rounds; round += 1) {
    for (const [side, run] of [['bare', bare], ['harness', harness]] as const) {
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < perRound) await run(round * perRound + next++);
        }),
      );
      elapsed[side] += performance.now() - started;
    }
  }
  return { bare: (perRound * rounds) / (elapsed.bare / 1000), harness: (perRound * rounds) / (elapsed.harness / 1000) };
}

export interface TurnBenchResult {
  /** Mean time of one turn at concurrency 1. */
  bareMsPerTurn: number;
  harnessMsPerTurn: number;
  timeRatio: number;
  /** Median time of one turn at concurrency 1. */
  bareMedianMs: number;
  harnessMedianMs: number;
  medianTimeRatio: number;
  bareTurnsPerSecond32: number;
  harnessTurnsPerSecond32: number;
  throughputRatio: number;
  /**
   * The service process's CPU per harness turn over the concurrency-32 rounds (warm-up
   * included; Linux only). Steadier than the times on a machine shared with other work, and
   * what bounds the throughput when the service's one thread is the busiest of the three.
   */
  serviceCpuMsPerTurn?: number;
}

/**
 * Three processes, as in production: this one is the client; the fixture model and the
 * harness service each run in their own (the bare baseline talks to the same model process).
 */
export async function runTurnBench(sequentialTurns = 400, concurrentTurns = 1280, modelLatencyMs = 0): Promise<TurnBenchResult> {
  const stack = await startBenchStack({ modelLatencyMs });
  const services = { agentUrl: stack.agentUrl };
  const account = { secret: stack.secret };
  const model = { baseURL: stack.modelBaseURL };
  try {
    const openai = createOpenAI({ apiKey: benchModelKey, baseURL: model.baseURL });
    const bare = async () => {
      const result = streamText({ model: openai.chat('fixture'), messages: [{ role: 'user', content: 'hello bench' }] });
      for await (const _ of toUIMessageStream({ stream: result.stream })) {
        // read every chunk, as the harness does
      }
    };
    // The harness client is the CLI's own reader (undici + eventsource-parser), parsing every chunk.
    const harness = async (index: number) => {
      const chunks = await requestUiMessageStream({ url: `${services.agentUrl}/agents/bench/chat`, secret: account.secret, body: { conversationKey: `bench-${index}-${Math.random()}`, message: 'hello bench' } });
      let last: UIMessageChunk | undefined;
      for await (const chunk of chunks) last = chunk;
      if (last?.type !== 'finish') throw new Error(`the turn ended with ${JSON.stringify(last)}`);
    };
    const sequential = await timeSequential(sequentialTurns, 10, bare, harness);
    const cpuBefore = processCpuMs(stack.servicePid);
    const concurrent = await throughput(concurrentTurns, 4, 32, bare, harness);
    const cpuAfter = processCpuMs(stack.servicePid);
    // The service is idle during the bare rounds: its CPU is the harness turns' (and the 32 of the warm-up).
    const serviceCpuMsPerTurn = cpuBefore !== undefined && cpuAfter !== undefined ? (cpuAfter - cpuBefore) / (Math.ceil(concurrentTurns / 4) * 4 + 32) : undefined;
    const result: TurnBenchResult = {
      bareMsPerTurn: sequential.bare.mean,
      harnessMsPerTurn: sequential.harness.mean,
      timeRatio: sequential.harness.mean / sequential.bare.mean,
      bareMedianMs: sequential.bare.median,
      harnessMedianMs: sequential.harness.median,
      medianTimeRatio: sequential.harness.median / sequential.bare.median,
      bareTurnsPerSecond32: concurrent.bare,
      harnessTurnsPerSecond32: concurrent.harness,
      throughputRatio: concurrent.harness / concurrent.bare,
      ...(serviceCpuMsPerTurn !== undefined ? { serviceCpuMsPerTurn } : {}),
    };
    console.log(`turn: harness SSE turn vs bare streamText, same fixture model, ${modelLatencyMs} ms model latency (bare and harness in alternating rounds)`);
    console.log(`  concurrency 1, mean:   bare ${result.bareMsPerTurn.toFixed(2)} ms/turn, harness ${result.harnessMsPerTurn.toFixed(2)} ms/turn, ratio ${result.timeRatio.toFixed(2)}x (target <= 1.3x; issue 25: <= 1.5x)`);
    console.log(`  concurrency 1, median: bare ${result.bareMedianMs.toFixed(2)} ms/turn, harness ${result.harnessMedianMs.toFixed(2)} ms/turn, ratio ${result.medianTimeRatio.toFixed(2)}x`);
    console.log(`  concurrency 32: bare ${result.bareTurnsPerSecond32.toFixed(0)} turns/s, harness ${result.harnessTurnsPerSecond32.toFixed(0)} turns/s, ratio ${result.throughputRatio.toFixed(2)}x (target >= 0.85x)`);
    if (serviceCpuMsPerTurn !== undefined) console.log(`  service CPU per harness turn at concurrency 32: ${serviceCpuMsPerTurn.toFixed(2)} ms`);
    return result;
  } finally {
    await stack.close();
  }
}

/** The required zero-latency comparison, and one with a model that takes 50 ms to answer (informative). */
export async function runTurnBenches(): Promise<{ zeroLatency: TurnBenchResult; modelLatency50Ms: TurnBenchResult }> {
  return { zeroLatency: await runTurnBench(), modelLatency50Ms: await runTurnBench(40, 320, 50) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runTurnBenches();
}
