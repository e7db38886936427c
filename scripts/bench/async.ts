/**
 * Async tool completions: completions per second through `POST /async-tools/{id}/complete`,
 * and the delay from the last sibling's completion to the continuation's first model call.
 * Baselines measured in the same run: authenticated `GET /status/{eventId}` requests at the
 * same concurrency, and a bare POST from here to the fixture model. Target: p99 of the
 * continuation delay ≤ 20 ms (a continuation starts as soon as its last sibling settles).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startFixtureModel } from '../../fixtures/model-server/fixture-model-server.js';
import { serve } from '../../server/serve.js';

const modelKey = 'sk-bench-async-0123456789';

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}

async function pool<T>(items: T[], concurrency: number, run: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await run(items[next++]!);
  }));
  return (performance.now() - started) / 1000;
}

export interface AsyncBenchResult {
  completionsPerSecond: number;
  baselineRequestsPerSecond: number;
  throughputRatio: number;
  continuationDelayP50Ms: number;
  continuationDelayP99Ms: number;
  bareModelRequestP50Ms: number;
}

export async function runAsyncBench(groups = 10, siblings = 50, delayRuns = 60): Promise<AsyncBenchResult> {
  const model = await startFixtureModel({ apiKey: modelKey });
  const dataDir = await mkdtemp(join(tmpdir(), 'harness-bench-async-'));
  const dispatches: { completeUrl: string; resultId: string }[] = [];
  const worker = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      dispatches.push(JSON.parse(body) as { completeUrl: string; resultId: string });
      response.writeHead(202).end('{}');
    });
  });
  await new Promise<void>((resolve) => worker.listen(0, '127.0.0.1', resolve));
  const workerUrl = `http://127.0.0.1:${(worker.address() as { port: number }).port}/dispatch`;
  const services = await serve({ accountPort: 0, agentPort: 0, dataDir, logger: false });
  try {
    const account = (await (await fetch(`${services.accountUrl}/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench', description: 'bench' }) })).json()) as { secret: string };
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${account.secret}` };
    await fetch(`${services.accountUrl}/accounts/me/agents/bench`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({
        config: {
          provider: { openai: { apiKey: modelKey, baseURL: model.baseURL, model: 'fixture', api: 'chat' } },
          tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: services.agentUrl, completionBearerToken: account.secret, workerUrl } },
        },
      }),
    });
    const dispatchGroup = async (count: number, key: string) => {
      dispatches.length = 0;
      const answer = (await (await fetch(`${services.agentUrl}/agents/bench/chat`, { method: 'POST', headers, body: JSON.stringify({ conversationKey: key, message: `call x${count} test_external_async {}` }) })).json()) as { eventId: string };
      return { eventId: answer.eventId, rows: [...dispatches] };
    };
    const complete = (row: { completeUrl: string }) =>
      fetch(row.completeUrl, { method: 'POST', headers, body: JSON.stringify({ status: 'completed', response: { ok: true } }) }).then((response) => response.text());

    // Throughput: every sibling of several groups, 16 at a time, against status polls.
    const rows: { completeUrl: string }[] = [];
    const eventIds: string[] = [];
    for (let group = 0; group < groups; group += 1) {
      const dispatched = await dispatchGroup(siblings, `throughput-${group}`);
      rows.push(...dispatched.rows);
      eventIds.push(dispatched.eventId);
    }
    const completionSeconds = await pool(rows, 16, async (row) => {
      await complete(row);
    });
    const statusSeconds = await pool(Array.from({ length: rows.length }, (_, index) => eventIds[index % eventIds.length]!), 16, async (eventId) => {
      await (await fetch(`${services.agentUrl}/status/${eventId}`, { headers })).text();
    });

    // Delay: the last sibling's completion → the continuation's model call.
    const delays: number[] = [];
    for (let run = 0; run < delayRuns; run += 1) {
      const dispatched = await dispatchGroup(2, `delay-${run}`);
      await complete(dispatched.rows[0]!);
      const callsBefore = model.callCount();
      const sentAt = Date.now();
      await complete(dispatched.rows[1]!);
      while (model.callCount() === callsBefore) await new Promise((resolve) => setImmediate(resolve));
      delays.push(model.calls()[callsBefore]!.time - sentAt);
    }
    const bare: number[] = [];
    for (let run = 0; run < delayRuns; run += 1) {
      const callsBefore = model.callCount();
      const sentAt = Date.now();
      void fetch(`${model.baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${modelKey}` }, body: JSON.stringify({ model: 'fixture', messages: [{ role: 'user', content: 'hi' }] }) }).then((response) => response.text());
      while (model.callCount() === callsBefore) await new Promise((resolve) => setImmediate(resolve));
      bare.push(model.calls()[callsBefore]!.time - sentAt);
    }
    const result = {
      completionsPerSecond: rows.length / completionSeconds,
      baselineRequestsPerSecond: rows.length / statusSeconds,
      throughputRatio: rows.length / completionSeconds / (rows.length / statusSeconds),
      continuationDelayP50Ms: percentile(delays, 0.5),
      continuationDelayP99Ms: percentile(delays, 0.99),
      bareModelRequestP50Ms: percentile(bare, 0.5),
    };
    console.log('async: completions and continuation delay');
    console.log(`  completions: ${result.completionsPerSecond.toFixed(0)}/s (16 concurrent) vs GET /status ${result.baselineRequestsPerSecond.toFixed(0)}/s: ratio ${result.throughputRatio.toFixed(2)}x`);
    console.log(`  last completion -> continuation model call: p50 ${result.continuationDelayP50Ms} ms, p99 ${result.continuationDelayP99Ms} ms (target p99 <= 20 ms); bare request to the model p50 ${result.bareModelRequestP50Ms} ms`);
    return result;
  } finally {
    await services.close();
    await model.close();
    worker.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runAsyncBench();
}
