/**
 * The cost of one durable write as the data set grows: our partitioned lowdb storage (a file
 * per partition) against the baseline of one lowdb JSON document holding every record, both
 * measured in this run on this disk. Prints a table and returns the figures.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Low } from 'lowdb';
import { DurableJsonAdapter } from '../../server/core/storage/durable-json-adapter.js';
import { LowdbStorage } from '../../server/core/storage/lowdb-storage.js';

const rowsPerPartition = 100;
const samples = 30;

function record(index: number) {
  return { agentId: `agent-${index}`, config: { system: `agent number ${index} of the benchmark`, tools: { alphaSearch: { maxResults: 3 } } }, createdAt: new Date(0).toISOString() };
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}

async function partitionedWriteCost(folder: string, records: number): Promise<number> {
  const storage = new LowdbStorage(folder);
  const table = storage.table<ReturnType<typeof record>>('bench');
  for (let start = 0; start < records; start += rowsPerPartition) {
    const operations = [];
    for (let index = start; index < Math.min(records, start + rowsPerPartition); index += 1) operations.push({ type: 'put' as const, key: `k${index}`, value: record(index) });
    await table.write(`partition-${start / rowsPerPartition}`, operations);
  }
  // Let the checkpoint the loading may have started finish, so it does not share the disk with the samples.
  await storage.close();
  const timings: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) {
    const started = performance.now();
    await table.write('partition-0', [{ type: 'put', key: `extra-${sample}`, value: record(sample) }]);
    timings.push(performance.now() - started);
  }
  await storage.close();
  return percentile(timings, 0.5);
}

async function singleDocumentWriteCost(folder: string, records: number): Promise<number> {
  const database = new Low<{ rows: Record<string, ReturnType<typeof record>> }>(new DurableJsonAdapter(join(folder, 'all.json')), { rows: {} });
  for (let index = 0; index < records; index += 1) database.data.rows[`k${index}`] = record(index);
  await database.write();
  const timings: number[] = [];
  for (let sample = 0; sample < Math.min(samples, records >= 100_000 ? 10 : samples); sample += 1) {
    const started = performance.now();
    database.data.rows[`extra-${sample}`] = record(sample);
    await database.write();
    timings.push(performance.now() - started);
  }
  return percentile(timings, 0.5);
}

export interface StorageBenchResult {
  records: number;
  partitionedMs: number;
  singleDocumentMs: number;
  ratio: number;
}

export async function runStorageBench(sizes = [100, 100_000]): Promise<StorageBenchResult[]> {
  const results: StorageBenchResult[] = [];
  for (const records of sizes) {
    const folder = await mkdtemp(join(tmpdir(), 'harness-bench-storage-'));
    try {
      const partitionedMs = await partitionedWriteCost(join(folder, 'partitioned'), records);
      const singleDocumentMs = await singleDocumentWriteCost(folder, records);
      results.push({ records, partitionedMs, singleDocumentMs, ratio: partitionedMs / singleDocumentMs });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }
  console.log('storage: median cost of one durable write (fsync), ours vs one lowdb document for everything');
  console.log('records   partitioned   single document   ratio (ours / baseline)');
  for (const result of results) {
    console.log(`${String(result.records).padEnd(9)} ${result.partitionedMs.toFixed(2).padStart(8)} ms   ${result.singleDocumentMs.toFixed(2).padStart(10)} ms     ${result.ratio.toFixed(3)}`);
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runStorageBench();
}
