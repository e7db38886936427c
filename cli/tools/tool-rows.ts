import { isRecord } from '../../server/core/is-record.js';

/**
 * How `harness tools` shows an agent's `config.tools`: one row per configured tool.
 * The contract's defaults apply: an entry is enabled unless `enabled: false`, and
 * `execution` is `same-invocation` unless set.
 */
export interface ToolRow {
  tool: string;
  enabled: boolean;
  async: boolean;
  execution: string;
  needsApproval: boolean;
  /** Whether an `apiKey` is stored (reads only ever show it redacted). */
  keySet: boolean;
  /** The key's last four characters when the service shows them (long keys only). */
  keyLast4?: string;
}

export const toolTableHeaders = ['TOOL', 'ENABLED', 'ASYNC', 'EXECUTION', 'APPROVAL', 'KEY'] as const;

type ToolEntry = Record<string, unknown>;

/** The tools map of an agent config, or an empty one when the agent has none. */
export function toolEntries(config: unknown): Record<string, ToolEntry> {
  const tools = isRecord(config) ? config.tools : undefined;
  if (!isRecord(tools)) return {};
  return Object.fromEntries(Object.entries(tools).map(([name, entry]) => [name, isRecord(entry) ? entry : {}]));
}

export function toolRow(tool: string, entry: ToolEntry): ToolRow {
  const apiKey = entry.apiKey;
  const row: ToolRow = {
    tool,
    enabled: entry.enabled !== false,
    async: entry.async === true,
    execution: typeof entry.execution === 'string' ? entry.execution : 'same-invocation',
    needsApproval: entry.needsApproval === true,
    keySet: apiKey !== undefined && apiKey !== null && apiKey !== '',
  };
  if (isRecord(apiKey) && typeof apiKey.last4 === 'string') row.keyLast4 = apiKey.last4;
  return row;
}

export function toolRows(config: unknown): ToolRow[] {
  return Object.entries(toolEntries(config)).map(([tool, entry]) => toolRow(tool, entry));
}

const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

/** The row's cells in `toolTableHeaders` order. */
export function toolCells(row: ToolRow): string[] {
  return [row.tool, yesNo(row.enabled), yesNo(row.async), row.execution, yesNo(row.needsApproval), row.keySet ? 'set' : '-'];
}
