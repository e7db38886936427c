/**
 * `npm run bench`: every benchmark in this folder, one report of ratios against baselines
 * measured in the same run, also written as JSON to bench-report.json.
 */
import { writeFile } from 'node:fs/promises';
import { runStorageBench } from './storage.js';

const report: Record<string, unknown> = { machine: { node: process.version, platform: process.platform }, startedAt: new Date().toISOString() };
report.storage = await runStorageBench();
await writeFile('bench-report.json', `${JSON.stringify(report, null, 2)}\n`);
console.log('\nreport written to bench-report.json');
