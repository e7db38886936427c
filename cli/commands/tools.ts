import { Command, Option } from 'commander';
import type { CliContext } from '../cli-context.js';
import { commandHint, verbatim } from '../command-hint.js';
import { CliError } from '../cli-error.js';
import { formatTable, printJson, printText } from '../output.js';
import { parsePositiveInteger } from '../parse-values.js';
import { readStdin, trimTrailingNewline } from '../read-stdin.js';
import { commandOptions, openAccountSession, withJsonOption, type CommonOptions } from '../session.js';
import { buildToolPatch, collectOption, type ToolChanges } from '../tools/tool-patch.js';
import { toolCells, toolEntries, toolRow, toolRows, toolTableHeaders } from '../tools/tool-rows.js';
import { agentPath, type Agent } from './agent.js';

export async function listTools(context: CliContext, agentId: string, options: CommonOptions): Promise<void> {
  const { accountService } = await openAccountSession(context, options.profile);
  const agent = await accountService.send<Agent>('GET', agentPath(agentId));
  const rows = toolRows(agent.config);
  if (options.json) return printJson(context.stdout, { agentId: agent.agentId, tools: rows });
  if (rows.length === 0) return printText(context.stdout, `Agent ${agent.agentId} has no tools: add one with \`${commandHint(context.env, options.profile)('tools', 'set', agent.agentId, verbatim('<tool>'), '--enable')}\`.`);
  printText(context.stdout, formatTable(toolTableHeaders, rows.map(toolCells)));
}

/** Reads an API key from stdin, so it never shows up in argv or shell history; `example` shows how to pipe it in. */
export async function readApiKey(context: CliContext, tool: string, example: string): Promise<string> {
  if (context.stdin.isTTY) context.stderr.write(`API key for ${tool} (then Enter): `);
  const key = trimTrailingNewline(await readStdin(context.stdin));
  if (key.trim() === '') throw new CliError(`--api-key-stdin read an empty key from stdin; pipe the key in, e.g. \`${example}\``, { exitCode: 2 });
  return key;
}

export interface SetToolOptions extends CommonOptions, Omit<ToolChanges, 'apiKey' | 'enabled' | 'options'> {
  enable?: boolean;
  disable?: boolean;
  apiKeyStdin?: boolean;
  option?: Record<string, unknown>;
}

/** Changes only the given fields of one tool with a JSON merge patch, then shows its row. */
export async function setTool(context: CliContext, agentId: string, tool: string, options: SetToolOptions): Promise<void> {
  const changes: ToolChanges = {
    enabled: options.enable ? true : options.disable ? false : undefined,
    async: options.async,
    execution: options.execution,
    needsApproval: options.needsApproval,
    maxResults: options.maxResults,
    options: options.option,
  };
  // Fail on a usage mistake before waiting for a key on stdin.
  buildToolPatch(tool, { ...changes, apiKey: options.apiKeyStdin ? 'pending' : undefined });
  const { accountService } = await openAccountSession(context, options.profile);
  if (options.apiKeyStdin) changes.apiKey = await readApiKey(context, tool, commandHint(context.env, options.profile)('tools', 'set', agentId, tool, '--api-key-stdin', verbatim('< key.txt')));
  const agent = await accountService.send<Agent>('PATCH', agentPath(agentId), {
    body: buildToolPatch(tool, changes),
    contentType: 'application/merge-patch+json',
  });
  const entry = toolEntries(agent.config)[tool];
  if (!entry) throw new CliError(`the service accepted the change but agent ${agentId} shows no tool "${tool}"`);
  const row = toolRow(tool, entry);
  if (options.json) printJson(context.stdout, { agentId: agent.agentId, tool: row });
  else printText(context.stdout, formatTable(toolTableHeaders, [toolCells(row)]));
}

export function toolsCommand(context: CliContext): Command {
  const list = withJsonOption(new Command('list').description("show an agent's tools").argument('<agentId>')).action(
    async (agentId: string, _options: unknown, command: Command) => listTools(context, agentId, commandOptions(command)),
  );
  const set = withJsonOption(
    new Command('set')
      .description("change one tool's settings (only the fields given)")
      .argument('<agentId>')
      .argument('<tool>', 'alphaSearch, alphaExtract, betaSearch, test_async, test_external_async')
      .addOption(new Option('--enable', 'enable the tool').conflicts('disable'))
      .addOption(new Option('--disable', 'disable the tool (keeps its settings)'))
      .option('--api-key-stdin', "read the tool's API key from stdin")
      .option('--async', 'run the tool asynchronously')
      .option('--no-async', 'run the tool synchronously')
      .addOption(new Option('--execution <mode>', 'async lifecycle').choices(['same-invocation', 'external-dispatch']))
      .option('--needs-approval', 'ask for approval before each call')
      .option('--no-needs-approval', 'run without asking')
      .option('--max-results <n>', 'maximum search results (alphaSearch)', parsePositiveInteger)
      .option('--option <key=value>', 'any other field; value is JSON when it parses (null removes it), else text; repeatable', collectOption),
  ).action(async (agentId: string, tool: string, _options: unknown, command: Command) =>
    setTool(context, agentId, tool, commandOptions<SetToolOptions>(command)),
  );
  return new Command('tools').description("show and change an agent's tools").addCommand(list).addCommand(set);
}
