/**
 * One turn-sized write (what a turn's save is: a conditional put of a conversation's state,
 * ten exchanges of messages, ~6 KB of JSON) on PostgreSQL against the embedded lowdb storage
 * (its write-ahead log), both durable, measured in the same run on this machine: the median
 * time of one write at concurrency 1, and writes per second with 32 conversations saving at
 * once. PostgreSQL is `HARNESS_DATABASE_URL` when set (its schema gets a bench table name),
 * else a throwaway local server (fsync on) started for the run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LowdbStorage } from '../../server/core/storage/lowdb-storage.js';
import { PostgresStorage } from '../../server/core/storage/postgres/postgres-storage.js';
import type { Storage, TableStore } from '../../server/core/storage/table-store.js';
import { startPostgresServer } from '../../test/support/postgres-server.js';

interface Conversation {
  conversationKey: string;
  messages: { role: string; content: string }[];
  updatedAt: string;
}

function conversation(key: string, turn: number): Conversation {
  const messages = [];
  for (let exchange = 0; exchange < 10; exchange += 1) {
    messages.push({ role: 'user', content: `question ${exchange} of conversation ${key}: ${'please look this up '.repeat(6)}` });
    messages.push({ role: 'assistant', content: `answer ${exchange}, turn ${turn}: ${'here is what I found '.repeat(10)}` });
  }
  return { conversationKey: key, messages, updatedAt: new Date(turn).toISOString() };
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Save a conversation at its current version, as a turn does; returns the new version. */
async function save(table: TableStore<Conversation>, key: string, turn: number, version: number | null): Promise<number> {
  const [written] = await table.write(`conversation:${key}`, [{ type: 'put', key: 'state', value: conversation(key, turn), expectedVersion: version }]);
  return written!.version;
}

async function measure(storage: Storage, tableName: string): Promise<{ medianMs: number; writesPerSecond: number }> {
  const table = storage.table<Conversation>(tableName);
  let version: number | null = null;
  for (let turn = 0; turn < 50; turn += 1) version = await save(table, 'warm-up', turn, version); // JIT, pool, first use
  const timings: number[] = [];
  for (let turn = 0; turn < 300; turn += 1) {
    const started = performance.now();
    version = await save(table, 'sequential', turn, turn === 0 ? null : version);
    timings.push(performance.now() - started);
  }
  const writesEach = 30;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async (_, index) => {
      let current: number | null = null;
      for (let turn = 0; turn < writesEach; turn += 1) current = await save(table, `concurrent-${index}`, turn, current);
    }),
  );
  return { medianMs: median(timings), writesPerSecond: (32 * writesEach) / ((performance.now() - started) / 1000) };
}

export interface PostgresStorageBenchResult {
  lowdb: { medianMs: number; writesPerSecond: number };
  postgres: { medianMs: number; writesPerSecond: number };
  /** PostgreSQL's median time over lowdb's: above 1 is slower. */
  timeRatio: number;
  /** PostgreSQL's throughput at concurrency 32 over lowdb's: below 1 is slower. */
  throughputRatio: number;
}

export async function runPostgresStorageBench(): Promise<PostgresStorageBenchResult> {
  const folder = await mkdtemp(join(tmpdir(), 'harness-bench-postgres-'));
  const server = process.env.HARNESS_DATABASE_URL ? undefined : await startPostgresServer();
  try {
    const lowdbStorage = new LowdbStorage(join(folder, 'lowdb'));
    const lowdb = await measure(lowdbStorage, 'bench-conversations');
    await lowdbStorage.close();
    const postgresStorage = new PostgresStorage({ connectionString: process.env.HARNESS_DATABASE_URL ?? server!.adminUrl });
    const postgres = await measure(postgresStorage, `bench-conversations-${Date.now()}`);
    await postgresStorage.close();
    const result = { lowdb, postgres, timeRatio: postgres.medianMs / lowdb.medianMs, throughputRatio: postgres.writesPerSecond / lowdb.writesPerSecond };
    console.log('storage on PostgreSQL: one turn-sized durable write (a conversation save, ~6 KB), against lowdb\'s write-ahead log');
    console.log('backend      median (c=1)   writes/s (c=32)');
    console.log(`lowdb WAL    ${lowdb.medianMs.toFixed(2).padStart(8)} ms   ${lowdb.writesPerSecond.toFixed(0).padStart(10)}`);
    console.log(`PostgreSQL   ${postgres.medianMs.toFixed(2).padStart(8)} ms   ${postgres.writesPerSecond.toFixed(0).padStart(10)}`);
    console.log(`ratio (PostgreSQL / lowdb): time ${result.timeRatio.toFixed(2)}x, throughput ${result.throughputRatio.toFixed(2)}x`);
    return result;
  } finally {
    await server?.stop();
    await rm(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runPostgresStorageBench();
}
