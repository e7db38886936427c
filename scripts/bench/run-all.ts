/**
 * `npm run bench`: every benchmark in this folder, one report of ratios against baselines
 * measured in the same run, also written as JSON to bench-report.json.
 */
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { runAsyncBench } from './async.js';
import { runCompactionBench } from './compaction.js';
import { runConversationLengthBench } from './conversation-length.js';
import { runConversationLoadBench } from './conversation-load.js';
import { runCronBench } from './cron.js';
import { runNatsBench } from './nats.js';
import { runScaleOutBench } from './scale-out.js';
import { runStorageBench } from './storage.js';
import { runPostgresStorageBench } from './storage-postgres.js';
import { runTokenEstimateBench } from './token-estimate.js';
import { runTracingBench } from './tracing.js';
import { runTurnBenches } from './turn.js';

const started = performance.now();
const report: Record<string, unknown> = { machine: { node: process.version, platform: process.platform, cores: availableParallelism() }, startedAt: new Date().toISOString() };
/** Runs one benchmark and records how long it took, so the whole run's budget (about 12 minutes) can be watched. */
async function section(name: string, run: () => Promise<unknown>): Promise<void> {
  const sectionStarted = performance.now();
  report[name] = await run();
  console.log(`  [${name}: ${((performance.now() - sectionStarted) / 1000).toFixed(0)} s]\n`);
}
await section('storage', () => runStorageBench());
await section('storagePostgres', () => runPostgresStorageBench());
await section('turn', () => runTurnBenches());
await section('tracing', () => runTracingBench({ baselineRef: process.env.HARNESS_BENCH_BASELINE_REF }));
await section('conversationLength', () => runConversationLengthBench());
await section('conversationLoad', () => runConversationLoadBench());
await section('compaction', () => runCompactionBench());
await section('tokenEstimate', () => runTokenEstimateBench());
await section('async', () => runAsyncBench());
await section('nats', () => runNatsBench());
await section('cron', () => runCronBench());
await section('scaleOut', () => runScaleOutBench());
report.seconds = (performance.now() - started) / 1000;
await writeFile('bench-report.json', `${JSON.stringify(report, null, 2)}\n`);
console.log(`report written to bench-report.json (${(report.seconds as number).toFixed(0)} s in all)`);
