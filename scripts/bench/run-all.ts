/**
 * `npm run bench`: every benchmark in this folder, one report of ratios against baselines
 * measured in the same run, also written as JSON to bench-report.json.
 */
import { writeFile } from 'node:fs/promises';
import { runAsyncBench } from './async.js';
import { runCronBench } from './cron.js';
import { runNatsBench } from './nats.js';
import { runStorageBench } from './storage.js';
import { runPostgresStorageBench } from './storage-postgres.js';
import { runTurnBenches } from './turn.js';

const report: Record<string, unknown> = { machine: { node: process.version, platform: process.platform }, startedAt: new Date().toISOString() };
report.storage = await runStorageBench();
report.storagePostgres = await runPostgresStorageBench();
report.turn = await runTurnBenches();
report.async = await runAsyncBench();
report.nats = await runNatsBench();
report.cron = await runCronBench();
await writeFile('bench-report.json', `${JSON.stringify(report, null, 2)}\n`);
console.log('\nreport written to bench-report.json');
