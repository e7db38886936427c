/**
 * What a conversation of many stored messages costs a turn outside the model call, on lowdb and
 * PostgreSQL: loading it (the first time in a process: every row; then: the head row and the
 * messages kept in memory), building what is sent from it (the latest summary marker and what
 * followed), and saving a turn's two messages. At 10, 5,000, 10,000 and 20,000 stored
 * messages, each ratio against the 10-message conversation measured in the same run. Decides
 * `HARNESS_LIMIT_CONVERSATION_MESSAGES` (docs/context.md).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ModelMessage } from 'ai';
import { contextView } from '../../server/core/context/context-view.js';
import type { StoredMessage } from '../../server/core/conversations/conversation.js';
import { type ConversationRow, ConversationsRepository } from '../../server/core/conversations/conversations-repository.js';
import { LowdbStorage } from '../../server/core/storage/lowdb-storage.js';
import { PostgresStorage } from '../../server/core/storage/postgres/postgres-storage.js';
import type { Storage } from '../../server/core/storage/table-store.js';
import { startPostgresServer } from '../../test/support/postgres-server.js';

export interface ConversationLoadRow {
  storage: 'lowdb' | 'postgres';
  messages: number;
  /** A process's first load (every row). */
  firstLoadMs: number;
  /** A turn's load once the messages are in memory (median). */
  cachedLoadMs: number;
  /** contextView over the whole stored history (median). */
  viewMs: number;
  /** Saving a turn's two messages (median). */
  saveMs: number;
  /** cachedLoad + view + save, over the same at 10 messages. */
  turnRatio: number;
}

const now = '2030-01-01T00:00:00.000Z';

function stored(index: number): StoredMessage {
  const message: ModelMessage =
    index % 2 === 0
      ? { role: 'user', content: `message ${index}: ${'please look this up and tell me more '.repeat(3)}` }
      : { role: 'assistant', content: [{ type: 'text', text: `answer ${index}: ${'here is what I found about it '.repeat(6)}` }] };
  return { message, turnId: `turn_${Math.floor(index / 2)}`, createdAt: now };
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** A conversation of `count` messages written in batches of 500 (as turns would, faster), with a summary marker near the end. */
async function seed(repository: ConversationsRepository, key: string, count: number): Promise<void> {
  let version: number | null = null;
  const state = { accountId: 'acc', agentId: 'agent', conversationKey: key, messages: [] as StoredMessage[], approvals: [], createdAt: now, updatedAt: now };
  for (let index = 0; index < count; index += 1) {
    state.messages.push(stored(index));
    if (index === count - 41 && count > 100) state.messages.push({ message: { role: 'user', content: 'summary' }, turnId: 'turn_x', createdAt: now, compaction: { summarizedThrough: count - 40, trigger: 'threshold', tokensBefore: 1, tokensAfter: 1 } });
    if (state.messages.length % 500 === 0 || index === count - 1) version = await repository.save(state, version);
  }
}

async function measure(storage: Storage, kind: ConversationLoadRow['storage'], sizes: number[], rounds: number): Promise<ConversationLoadRow[]> {
  const rows: ConversationLoadRow[] = [];
  for (const size of sizes) {
    await seed(new ConversationsRepository(storage.table<ConversationRow>('conversations')), `c${size}`, size);
    // A new repository: nothing in memory, as in a process that has not seen the conversation.
    const repository = new ConversationsRepository(storage.table<ConversationRow>('conversations'));
    let started = performance.now();
    await repository.load('acc', 'agent', `c${size}`, now);
    const firstLoadMs = performance.now() - started;
    const loads: number[] = [];
    const views: number[] = [];
    const saves: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      started = performance.now();
      const loaded = await repository.load('acc', 'agent', `c${size}`, now);
      loads.push(performance.now() - started);
      started = performance.now();
      contextView(loaded.state.messages);
      views.push(performance.now() - started);
      loaded.state.messages.push(stored(loaded.state.messages.length), stored(loaded.state.messages.length + 1));
      started = performance.now();
      await repository.save(loaded.state, loaded.version);
      saves.push(performance.now() - started);
    }
    rows.push({ storage: kind, messages: size, firstLoadMs, cachedLoadMs: median(loads), viewMs: median(views), saveMs: median(saves), turnRatio: 0 });
  }
  const base = rows[0]!;
  const turnCost = (row: ConversationLoadRow) => row.cachedLoadMs + row.viewMs + row.saveMs;
  for (const row of rows) row.turnRatio = turnCost(row) / turnCost(base);
  return rows;
}

export async function runConversationLoadBench(options: { sizes?: number[]; rounds?: number } = {}): Promise<ConversationLoadRow[]> {
  const sizes = options.sizes ?? [10, 5_000, 10_000, 20_000];
  const rounds = options.rounds ?? 20;
  const folder = await mkdtemp(join(tmpdir(), 'harness-bench-load-'));
  const postgres = await startPostgresServer();
  const results: ConversationLoadRow[] = [];
  try {
    const lowdb = new LowdbStorage(folder);
    results.push(...(await measure(lowdb, 'lowdb', sizes, rounds)));
    await lowdb.close();
    const pg = new PostgresStorage({ connectionString: postgres.adminUrl, poolSize: 4 });
    results.push(...(await measure(pg, 'postgres', sizes, rounds)));
    await pg.close();
  } finally {
    await postgres.stop();
    await rm(folder, { recursive: true, force: true });
  }
  console.log('conversation load: a turn\'s storage and context cost against the stored messages (medians; ratio of load + view + save over 10 messages)');
  for (const row of results) {
    console.log(`  ${row.storage.padEnd(8)} ${String(row.messages).padStart(6)} messages: first load ${row.firstLoadMs.toFixed(1)} ms, load ${row.cachedLoadMs.toFixed(2)} ms, view ${row.viewMs.toFixed(2)} ms, save ${row.saveMs.toFixed(2)} ms, ratio ${row.turnRatio.toFixed(2)}x`);
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runConversationLoadBench();
}
