import { Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../cli-context.js';
import { formatTable, printJson, printText } from '../output.js';
import { commandOptions, openAccountSession, withJsonOption, type CommonOptions } from '../session.js';
import type { UsageReport } from '../../client/index.js';

/** `GET /accounts/me/usage` and one of its rows: the API contract's views. */
export type { UsageReport };
export type UsageRow = UsageReport['usage'][number];

export type UsageOptions = CommonOptions & { from?: string; to?: string };

function parseDay(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new InvalidArgumentError('expected a date as YYYY-MM-DD (a UTC day).');
  return value;
}

/** A table per day and agent, then one line with the totals of the range. */
export function formatUsage(report: UsageReport): string {
  if (report.usage.length === 0) return `No token usage from ${report.from} to ${report.to}.\n`;
  const cells = (row: Omit<UsageRow, 'agentId' | 'day'>) => [String(row.inputTokens), String(row.outputTokens), String(row.totalTokens), String(row.turns ?? 0)];
  const total = report.usage.reduce(
    (sum, row) => ({ inputTokens: sum.inputTokens + row.inputTokens, outputTokens: sum.outputTokens + row.outputTokens, totalTokens: sum.totalTokens + row.totalTokens, turns: sum.turns + (row.turns ?? 0) }),
    { inputTokens: 0, outputTokens: 0, totalTokens: 0, turns: 0 },
  );
  const rows = [...report.usage.map((row) => [row.day, row.agentId, ...cells(row)]), ['total', '', ...cells(total)]];
  return `Token usage from ${report.from} to ${report.to} (UTC days):\n${formatTable(['DAY', 'AGENT', 'INPUT', 'OUTPUT', 'TOTAL', 'TURNS'], rows)}`;
}

/** Shows the profile's account's token usage per day and agent (default: the last 30 days). */
export async function runUsage(context: CliContext, options: UsageOptions): Promise<void> {
  const { accountService } = await openAccountSession(context, options.profile);
  const query = new URLSearchParams({ ...(options.from ? { from: options.from } : {}), ...(options.to ? { to: options.to } : {}) }).toString();
  const report = await accountService.send<UsageReport>('GET', `/accounts/me/usage${query ? `?${query}` : ''}`);
  if (options.json) return printJson(context.stdout, report);
  printText(context.stdout, formatUsage(report));
}

export function usageCommand(context: CliContext): Command {
  return withJsonOption(
    new Command('usage')
      .description('show token usage per day and agent (default: the last 30 days)')
      .option('--from <date>', 'first day, YYYY-MM-DD (UTC), included', parseDay)
      .option('--to <date>', 'last day, YYYY-MM-DD (UTC), included; default today', parseDay),
  ).action(async (_options: unknown, command: Command) => runUsage(context, commandOptions<UsageOptions>(command)));
}
