/**
 * A harness SSE turn against a bare `streamText` call on the same fixture model (zero
 * latency), measured in one run: time per turn at concurrency 1, and throughput at 32.
 * Targets (issue 3): ≤ 1.3× the bare time per turn, ≥ 0.7× the bare throughput.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createOpenAI } from '@ai-sdk/openai';
import { streamText } from 'ai';
import { startFixtureModel } from '../../fixtures/model-server/fixture-model-server.js';
import { serve } from '../../server/serve.js';

const modelKey = 'sk-bench-0123456789abcdef';

async function consumeSse(response: Response): Promise<void> {
  const reader = response.body!.getReader();
  let tail = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    tail = (tail + new TextDecoder().decode(value)).slice(-32);
  }
  if (!tail.includes('[DONE]')) throw new Error('the stream did not end with [DONE]');
}

async function timeSequential(turns: number, run: (index: number) => Promise<void>): Promise<number> {
  for (let index = 0; index < 5; index += 1) await run(-index - 1); // warm-up
  const started = performance.now();
  for (let index = 0; index < turns; index += 1) await run(index);
  return (performance.now() - started) / turns;
}

async function throughput(turns: number, concurrency: number, run: (index: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < turns) await run(next++);
    }),
  );
  return turns / ((performance.now() - started) / 1000);
}

export interface TurnBenchResult {
  bareMsPerTurn: number;
  harnessMsPerTurn: number;
  timeRatio: number;
  bareTurnsPerSecond32: number;
  harnessTurnsPerSecond32: number;
  throughputRatio: number;
}

export async function runTurnBench(sequentialTurns = 200, concurrentTurns = 640): Promise<TurnBenchResult> {
  const model = await startFixtureModel({ apiKey: modelKey });
  const dataDir = await mkdtemp(join(tmpdir(), 'harness-bench-turn-'));
  const services = await serve({ accountPort: 0, agentPort: 0, dataDir, logger: false });
  try {
    const account = (await (await fetch(`${services.accountUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench', description: 'bench' }) })).json()) as { secret: string };
    await fetch(`${services.accountUrl}/accounts/me/agents/bench`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${account.secret}` },
      body: JSON.stringify({ config: { provider: { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } } } }),
    });
    const openai = createOpenAI({ apiKey: modelKey, baseURL: model.baseURL });
    const bare = async () => {
      const result = streamText({ model: openai.chat('fixture'), messages: [{ role: 'user', content: 'hello bench' }] });
      for await (const _ of result.toUIMessageStream()) {
        // read every chunk, as the harness does
      }
    };
    const harness = async (index: number) => {
      const response = await fetch(`${services.agentUrl}/agents/bench/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${account.secret}` },
        body: JSON.stringify({ conversationKey: `bench-${index}-${Math.random()}`, message: 'hello bench' }),
      });
      await consumeSse(response);
    };
    const bareMsPerTurn = await timeSequential(sequentialTurns, bare);
    const harnessMsPerTurn = await timeSequential(sequentialTurns, harness);
    const bareTurnsPerSecond32 = await throughput(concurrentTurns, 32, bare);
    const harnessTurnsPerSecond32 = await throughput(concurrentTurns, 32, harness);
    const result = {
      bareMsPerTurn,
      harnessMsPerTurn,
      timeRatio: harnessMsPerTurn / bareMsPerTurn,
      bareTurnsPerSecond32,
      harnessTurnsPerSecond32,
      throughputRatio: harnessTurnsPerSecond32 / bareTurnsPerSecond32,
    };
    console.log('turn: harness SSE turn vs bare streamText, same fixture model, zero latency');
    console.log(`  concurrency 1:  bare ${bareMsPerTurn.toFixed(2)} ms/turn, harness ${harnessMsPerTurn.toFixed(2)} ms/turn, ratio ${result.timeRatio.toFixed(2)}x (target <= 1.3x)`);
    console.log(`  concurrency 32: bare ${bareTurnsPerSecond32.toFixed(0)} turns/s, harness ${harnessTurnsPerSecond32.toFixed(0)} turns/s, ratio ${result.throughputRatio.toFixed(2)}x (target >= 0.7x)`);
    return result;
  } finally {
    await services.close();
    await model.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runTurnBench();
}
