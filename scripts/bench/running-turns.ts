/**
 * What making turns cancellable costs a turn: the in-memory registry (one process), and on
 * PostgreSQL the row a running turn writes and deletes (not awaited by the turn), what
 * `register()` costs the turn itself, and how long a cancel sent through another replica
 * takes to abort the turn by NOTIFY. `npx tsx scripts/bench/running-turns.ts`; figures in
 * docs/run-control.md.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { InMemoryRunningTurns } from '../../server/core/coordination/running-turns.js';
import { PostgresRunningTurns } from '../../server/core/coordination/postgres/postgres-running-turns.js';
import { migrate, readMigrations } from '../../server/core/storage/postgres/postgres-migrations.js';
import { startPostgresServer } from '../../test/support/postgres-server.js';

const silent = { info() {}, warn() {}, error() {}, debug() {} };
const turn = (index: number) => ({ turnId: `turn_${index}`, eventId: `evt_${index}`, accountId: 'acc', agentId: 'agent', conversationKey: `k${index}` });

const memory = new InMemoryRunningTurns();
const count = 200_000;
let started = performance.now();
for (let index = 0; index < count; index += 1) {
  const controller = new AbortController();
  const unregister = memory.register(turn(index), () => controller.abort());
  unregister();
}
console.log(`memory: register + AbortController + unregister: ${(((performance.now() - started) * 1000) / count).toFixed(2)} µs per turn`);

const server = await startPostgresServer();
const url = server.adminUrl;
const pool = new pg.Pool({ connectionString: url, max: 4 });
pool.on('error', () => undefined);
await migrate(pool, await readMigrations());
const shared = new PostgresRunningTurns({ pool, connectionString: url, owner: 'bench#1#x', leaseMs: 30_000, pollMs: 1_000, logger: silent });
await shared.start();
const turns = 2_000;
// Sequential: the insert and delete each turn sends (the turn itself does not wait for them).
started = performance.now();
for (let index = 0; index < turns; index += 1) {
  await pool.query('INSERT INTO harness_running_turns (turn_id, event_id, account_id, agent_id, conversation_key, owner, leased_until) VALUES ($1,$2,$3,$4,$5,$6, now() + interval \'30 seconds\')', [`t${index}`, `e${index}`, 'acc', 'agent', `k${index}`, 'bench#1#x']);
  await pool.query('DELETE FROM harness_running_turns WHERE turn_id = $1', [`t${index}`]);
}
console.log(`postgres: insert + delete round trips: ${((performance.now() - started) / turns).toFixed(3)} ms per turn (off the turn's path)`);
// What register() costs the turn itself: the call returns before the insert is done.
started = performance.now();
const unregisters = [];
for (let index = 0; index < turns; index += 1) unregisters.push(shared.register(turn(index + 10_000), () => undefined));
const registerCost = (performance.now() - started) / turns;
for (const unregister of unregisters) unregister();
console.log(`postgres: register() on the turn's path: ${(registerCost * 1000).toFixed(2)} µs per turn`);
// A cancel through the other path: mark + notify, heard by the listener.
let heard = 0;
const done = new Promise<void>((resolve) => {
  const target = turn(99_999);
  shared.register(target, () => {
    heard = performance.now();
    resolve();
  });
});
// Let the 2,000 deletes above drain from the pool first: a cancel queued behind them measures the queue.
await new Promise((resolve) => setTimeout(resolve, 3_000));
const other = new PostgresRunningTurns({ pool, connectionString: url, owner: 'bench#2#y', leaseMs: 30_000, pollMs: 1_000, logger: silent });
const sent = performance.now();
await other.requestCancel({ accountId: 'acc', eventId: 'evt_99999' });
await done;
console.log(`postgres: cancel request to abort in the other replica (NOTIFY): ${(heard - sent).toFixed(2)} ms`);
await shared.close();
await other.close();
await pool.end();
await server.stop();
