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
  /** The same usage per provider and model (each entry names its `provider` and `model`). */
  byModel?: TokenUsage[];
}

/** One row of `GET /accounts/me/usage?by=model`: an agent's usage of one provider's model on one day. */
export interface UsageByModelReportRow extends TokenUsage {
  agentId: string;
  day: string;
  provider: string;
  model: string;
}

/** One row of `GET /accounts/me/usage`. */
export interface UsageReportRow extends TokenUsage {
  agentId: string;
  day: string;
  turns: number;
}

export interface UsageReport extends UsageRange {
  usage: UsageReportRow[] | UsageByModelReportRow[];
}

function tokenCounts(usage: TokenUsage): TokenUsage {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.totalTokens,
    ...(usage.cachedInputTokens !== undefined ? { cachedInputTokens: usage.cachedInputTokens } : {}),
    ...(usage.cacheWriteTokens !== undefined ? { cacheWriteTokens: usage.cacheWriteTokens } : {}),
    ...(usage.reasoningTokens !== undefined ? { reasoningTokens: usage.reasoningTokens } : {}),
    ...(usage.estimatedTokens !== undefined ? { estimatedTokens: usage.estimatedTokens } : {}),
  };
}

function reportRow(row: UsageRow): UsageReportRow {
  return { agentId: row.agentId, day: row.day, ...tokenCounts(row), turns: row.turns };
}

/** A day row split per provider and model (rows written before usage named its model have none). */
function byModelRows(row: UsageRow): UsageByModelReportRow[] {
  return Object.values(row.byModel ?? {}).map((usage) => ({ agentId: row.agentId, day: row.day, provider: usage.provider ?? '', model: usage.model ?? '', ...tokenCounts(usage) }));
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
      await this.options.repository.add({ accountId: run.accountId, agentId: run.agentId, day: utcDay(now), usage: run.usage, ...(run.byModel ? { byModel: run.byModel } : {}), turns: run.startsTurn ? 1 : 0, updatedAt: now.toISOString() });
    } catch (error) {
      this.options.logger.error({ event: 'usage', accountId: run.accountId, agentId: run.agentId, totalTokens: run.usage.totalTokens, error: (error as Error).message }, 'usage not recorded');
    }
  }

  /** The account's rows over a range of days (default: the last 30), by day then agent; `by: "model"` splits each per provider and model. */
  async report(accountId: string, query: { from?: string; to?: string; by?: 'agent' | 'model' }): Promise<UsageReport> {
    const range = resolveUsageRange(query, this.options.now());
    const rows = await this.options.repository.list(accountId, range.from, range.to);
    return { ...range, usage: query.by === 'model' ? rows.flatMap(byModelRows) : rows.map(reportRow) };
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
