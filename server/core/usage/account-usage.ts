import type { Logger } from '../logger.js';
import type { DailyTokenBudget, OpenBudgetOptions } from './daily-token-budget.js';
import type { RunTokenBudget } from './run-token-budget.js';
import { hasTokens, type TokenUsage } from './token-usage.js';
import { utcDay } from './usage-day.js';
import { resolveUsageRange, type UsageRange } from './usage-range.js';
import type { UsageRepository, UsageRow } from './usage-repository.js';

/** What one run of a turn used: the turn's first run, or a continuation of it. */
export interface TurnRunUsage {
  accountId: string;
  agentId: string;
  /** The sum of the run's model calls. */
  usage: TokenUsage;
  /** True for the run that started the turn (a user message); continuations count no new turn. */
  startsTurn: boolean;
}

/** One row of `GET /accounts/me/usage`. */
export interface UsageReportRow extends TokenUsage {
  agentId: string;
  day: string;
  turns: number;
}

export interface UsageReport extends UsageRange {
  usage: UsageReportRow[];
}

function reportRow(row: UsageRow): UsageReportRow {
  return {
    agentId: row.agentId,
    day: row.day,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    totalTokens: row.totalTokens,
    ...(row.cachedInputTokens !== undefined ? { cachedInputTokens: row.cachedInputTokens } : {}),
    ...(row.reasoningTokens !== undefined ? { reasoningTokens: row.reasoningTokens } : {}),
    ...(row.estimatedTokens !== undefined ? { estimatedTokens: row.estimatedTokens } : {}),
    turns: row.turns,
  };
}

export interface AccountUsageOptions {
  repository: UsageRepository;
  budget: DailyTokenBudget;
  logger: Logger;
  now: () => Date;
}

/** Token usage per account, agent and UTC day: recorded by turns, reported to the account, and its daily budget. */
export class AccountUsage {
  constructor(private readonly options: AccountUsageOptions) {}

  /**
   * Adds a run's usage to today's row (UTC). Never throws: a lost count is logged, and the
   * turn it belongs to is not failed for it.
   */
  async record(run: TurnRunUsage): Promise<void> {
    if (!run.startsTurn && !hasTokens(run.usage)) return;
    const now = this.options.now();
    try {
      await this.options.repository.add({ accountId: run.accountId, agentId: run.agentId, day: utcDay(now), usage: run.usage, turns: run.startsTurn ? 1 : 0, updatedAt: now.toISOString() });
    } catch (error) {
      this.options.logger.error({ event: 'usage', accountId: run.accountId, agentId: run.agentId, totalTokens: run.usage.totalTokens, error: (error as Error).message }, 'usage not recorded');
    }
  }

  /** The account's rows over a range of days (default: the last 30), by day then agent. */
  async report(accountId: string, query: { from?: string; to?: string }): Promise<UsageReport> {
    const range = resolveUsageRange(query, this.options.now());
    const rows = await this.options.repository.list(accountId, range.from, range.to);
    return { ...range, usage: rows.map(reportRow) };
  }

  /** Refuses a new turn (429) once the account's tokens of today reach its daily limit. */
  checkBudget(accountId: string, readByRequest?: { tokensPerDay?: number }): Promise<void> {
    return this.options.budget.check(accountId, readByRequest);
  }

  /** A run's budget, checked before each of its model calls (see `DailyTokenBudget.open`). */
  openRunBudget(accountId: string, options: OpenBudgetOptions): Promise<RunTokenBudget> {
    return this.options.budget.open(accountId, options);
  }
}
