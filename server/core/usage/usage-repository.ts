import { setTimeout as sleep } from 'node:timers/promises';
import { ConditionFailedError, type TableStore } from '../storage/table-store.js';
import { addUsage, type TokenUsage } from './token-usage.js';
import { monthOf, monthsInRange, type UsageDay } from './usage-day.js';

/** One account's usage of one agent on one UTC day. */
export interface UsageRow extends TokenUsage {
  accountId: string;
  agentId: string;
  day: UsageDay;
  /** Turns started on that day (a turn's continuations after async tools or approvals add none). */
  turns: number;
  updatedAt: string;
}

/** What one finished run of a turn adds to its day. */
export interface UsageIncrement {
  accountId: string;
  agentId: string;
  day: UsageDay;
  usage: TokenUsage;
  turns: number;
  updatedAt: string;
}

/** A busy counter is retried this often; each round one of the writers gets through. */
const maxAttempts = 200;

/** One account's month, so a day's check reads one small partition and a year's report at most 13. */
function partitionOf(accountId: string, month: string): string {
  return JSON.stringify([accountId, month]);
}

function keyOf(day: UsageDay, agentId: string): string {
  return JSON.stringify([day, agentId]);
}

/**
 * The usage counters: a row per account, agent and UTC day, in one partition per account and
 * month. Every increment is a compare-and-set on the row's version, retried when another turn
 * (on this replica or another) wrote it first, so concurrent turns never lose an increment.
 */
export class UsageRepository {
  constructor(private readonly table: TableStore<UsageRow>) {}

  async add(increment: UsageIncrement): Promise<UsageRow> {
    const { accountId, agentId, day } = increment;
    const partition = partitionOf(accountId, monthOf(day));
    const key = keyOf(day, agentId);
    for (let attempt = 1; ; attempt += 1) {
      const current = await this.table.get(partition, key);
      const base: UsageRow = current?.value ?? { accountId, agentId, day, inputTokens: 0, outputTokens: 0, totalTokens: 0, turns: 0, updatedAt: increment.updatedAt };
      const next: UsageRow = {
        ...base,
        ...addUsage(base, increment.usage),
        turns: base.turns + increment.turns,
        updatedAt: increment.updatedAt,
      };
      try {
        const [written] = await this.table.write(partition, [{ type: 'put', key, value: next, expectedVersion: current ? current.version : null }]);
        return written!.value;
      } catch (error) {
        if (!(error instanceof ConditionFailedError) || attempt >= maxAttempts) throw error;
        // A little random wait spreads writers that collided, so they do not collide again.
        await sleep(Math.floor(Math.random() * Math.min(attempt, 10)));
      }
    }
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
