import { setTimeout as sleep } from 'node:timers/promises';
import { retryOnConflict } from '../storage/retry-on-conflict.js';
import type { TableStore, VersionedRow } from '../storage/table-store.js';
import { addUsage, type TokenUsage } from './token-usage.js';
import { monthOf, monthsInRange, type UsageDay } from './usage-day.js';

/** One account's usage of one agent on one UTC day. */
export interface UsageRow extends TokenUsage {
  accountId: string;
  agentId: string;
  day: UsageDay;
  /** Turns started on that day (a turn's continuations after async tools or approvals add none). */
  turns: number;
  /** The same tokens per provider and model, keyed by `JSON.stringify([provider, model])`; absent on rows written before. */
  byModel?: Record<string, TokenUsage>;
  updatedAt: string;
}

/** What one finished run of a turn adds to its day. */
export interface UsageIncrement {
  accountId: string;
  agentId: string;
  day: UsageDay;
  usage: TokenUsage;
  /** The same usage per provider and model (each naming its `provider` and `model`). */
  byModel?: TokenUsage[];
  turns: number;
  updatedAt: string;
}

/** A busy counter is retried this often; each round one of the writers gets through. */
const maxAttempts = 200;

/** Counter rows whose last written version this process keeps, so an increment needs no read first. */
const maxKnownRows = 10_000;

function partitionOf(accountId: string, month: string): string {
  return JSON.stringify([accountId, month]);
}

function keyOf(day: UsageDay, agentId: string): string {
  return JSON.stringify([day, agentId]);
}

/** Increments of one row waiting for its next write, merged, and who waits for them. */
interface PendingIncrements {
  increment: UsageIncrement;
  waiters: { resolve: (row: UsageRow) => void; reject: (error: unknown) => void }[];
}

function merged(left: UsageIncrement, right: UsageIncrement): UsageIncrement {
  const byModel = [...(left.byModel ?? []), ...(right.byModel ?? [])];
  return { ...right, usage: addUsage(left.usage, right.usage), ...(byModel.length > 0 ? { byModel } : {}), turns: left.turns + right.turns };
}

/** A row's per-model counts with an increment's added. */
function addByModel(before: Record<string, TokenUsage> | undefined, increments: readonly TokenUsage[] | undefined): Record<string, TokenUsage> | undefined {
  if (!increments || increments.length === 0) return before;
  const after = { ...before };
  for (const usage of increments) {
    const key = JSON.stringify([usage.provider ?? '', usage.model ?? '']);
    after[key] = Object.hasOwn(after, key) ? addUsage(after[key]!, usage) : usage;
  }
  return after;
}

/**
 * The usage counters: a row per account, agent and UTC day, in one partition per account and
 * month. Every increment is a compare-and-set on the row's version, retried when another
 * replica wrote it first, so no increment is lost. Within this process one write per row is in
 * flight at a time and the increments that come meanwhile go together in the next one, and the
 * version this process last wrote is kept, so a turn's increment is written at once, without a
 * read (in the same group commit as the turn's conversation write, on lowdb).
 */
export class UsageRepository {
  private readonly known = new Map<string, VersionedRow<UsageRow>>();
  private readonly pending = new Map<string, PendingIncrements>();
  private readonly writing = new Set<string>();

  constructor(private readonly table: TableStore<UsageRow>) {}

  /** Adds an increment to its row; resolves with the row once a write that includes it is durable. */
  add(increment: UsageIncrement): Promise<UsageRow> {
    const partition = partitionOf(increment.accountId, monthOf(increment.day));
    const rowId = JSON.stringify([partition, keyOf(increment.day, increment.agentId)]);
    return new Promise<UsageRow>((resolve, reject) => {
      const waiting = this.pending.get(rowId);
      if (waiting) {
        waiting.increment = merged(waiting.increment, increment);
        waiting.waiters.push({ resolve, reject });
      } else {
        this.pending.set(rowId, { increment, waiters: [{ resolve, reject }] });
      }
      if (!this.writing.has(rowId)) void this.writePending(rowId, partition);
    });
  }

  /** Writes the row's pending increments, then those that came meanwhile, until none are left. */
  private async writePending(rowId: string, partition: string): Promise<void> {
    this.writing.add(rowId);
    try {
      for (let batch = this.pending.get(rowId); batch; batch = this.pending.get(rowId)) {
        this.pending.delete(rowId);
        try {
          const row = await this.write(rowId, partition, batch.increment);
          for (const waiter of batch.waiters) waiter.resolve(row);
        } catch (error) {
          for (const waiter of batch.waiters) waiter.reject(error);
        }
      }
    } finally {
      this.writing.delete(rowId);
    }
  }

  private async write(rowId: string, partition: string, increment: UsageIncrement): Promise<UsageRow> {
    const { accountId, agentId, day } = increment;
    const key = keyOf(day, agentId);
    return retryOnConflict(
      { table: this.table.name, key },
      async () => {
        // The version this process wrote last, else a read (the first increment, or another replica wrote since).
        const current = this.known.get(rowId) ?? (await this.table.get(partition, key));
        const base: UsageRow = current?.value ?? { accountId, agentId, day, inputTokens: 0, outputTokens: 0, totalTokens: 0, turns: 0, updatedAt: increment.updatedAt };
        const { provider: _provider, model: _model, ...total } = addUsage(base, increment.usage);
        const byModel = addByModel(base.byModel, increment.byModel);
        const next: UsageRow = {
          ...base,
          ...total,
          ...(byModel ? { byModel } : {}),
          turns: base.turns + increment.turns,
          updatedAt: increment.updatedAt,
        };
        const [written] = await this.table.write(partition, [{ type: 'put', key, value: next, expectedVersion: current ? current.version : null }]).catch((error: unknown) => {
          this.known.delete(rowId);
          throw error;
        });
        this.remember(rowId, written!);
        return written!.value;
      },
      // A little random wait spreads replicas that collided, so they do not collide again.
      { attempts: maxAttempts, beforeRetry: (attempt) => sleep(Math.floor(Math.random() * Math.min(attempt, 10))) },
    );
  }

  private remember(rowId: string, row: VersionedRow<UsageRow>): void {
    this.known.delete(rowId);
    this.known.set(rowId, row);
    if (this.known.size > maxKnownRows) this.known.delete(this.known.keys().next().value!);
  }

  /** The account's rows from `from` to `to` (UTC days, both included), by day then agent. */
  async list(accountId: string, from: UsageDay, to: UsageDay): Promise<UsageRow[]> {
    const months = await Promise.all(monthsInRange(from, to).map((month) => this.table.list(partitionOf(accountId, month))));
    return months
      .flat()
      .map((row) => row.value)
      .filter((row) => row.day >= from && row.day <= to)
      .sort((left, right) => (left.day === right.day ? (left.agentId < right.agentId ? -1 : left.agentId > right.agentId ? 1 : 0) : left.day < right.day ? -1 : 1));
  }

  /** The account's tokens on one day, all agents together. */
  async dayTotal(accountId: string, day: UsageDay): Promise<number> {
    const rows = await this.table.list(partitionOf(accountId, monthOf(day)));
    return rows.reduce((total, row) => (row.value.day === day ? total + row.value.totalTokens : total), 0);
  }
}
