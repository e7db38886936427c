import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { commandHint, verbatim } from '../command-hint.js';
import { CliError } from '../cli-error.js';
import { formatFields, formatTable, printJson, printText } from '../output.js';
import { readStdin } from '../read-stdin.js';
import { commandOptions, openAccountSession, openAgentSession, withJsonOption, type CommonOptions } from '../session.js';
import { toolRows } from '../tools/tool-rows.js';
import type { Agent } from '../../client/index.js';

/** An agent as the account service returns it: secrets in `config` are redacted. */
export type { Agent };

export const agentPath = (agentId: string): string => `/accounts/me/agents/${encodeURIComponent(agentId)}`;

const enabledTools = (agent: Agent): string =>
  toolRows(agent.config)
    .filter((row) => row.enabled)
    .map((row) => row.tool)
    .join(',') || '-';

function printAgent(context: CliContext, agent: Agent): void {
  printText(context.stdout, formatFields([['agent', agent.agentId], ['created', agent.createdAt], ['updated', agent.updatedAt]]));
  printText(context.stdout, `config:\n${JSON.stringify(agent.config, null, 2)}`);
}

export async function listAgents(context: CliContext, options: CommonOptions): Promise<void> {
  const { accountService } = await openAccountSession(context, options.profile);
  const reply = await accountService.send<{ agents: Agent[] }>('GET', '/accounts/me/agents');
  if (options.json) return printJson(context.stdout, reply);
  if (reply.agents.length === 0) return printText(context.stdout, `No agents yet: create one with \`${commandHint(context.env, options.profile)('agent', 'put', verbatim('<agentId>'), '--file', 'config.json')}\`.`);
  const rows = reply.agents.map((agent) => [agent.agentId, enabledTools(agent), agent.updatedAt]);
  printText(context.stdout, formatTable(['AGENT', 'TOOLS', 'UPDATED'], rows));
}

export async function getAgent(context: CliContext, agentId: string, options: CommonOptions): Promise<void> {
  const { accountService } = await openAccountSession(context, options.profile);
  const agent = await accountService.send<Agent>('GET', agentPath(agentId));
  if (options.json) printJson(context.stdout, agent);
  else printAgent(context, agent);
}

/** Reads an agent config file (`-` for stdin): a JSON object, sent as `{config}`. */
export async function readConfigFile(context: CliContext, file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = file === '-' ? await readStdin(context.stdin) : await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new CliError(`${file} must hold the agent config as a JSON object, e.g. {"system": "...", "tools": {}}`);
  }
  return config as Record<string, unknown>;
}

/**
 * Puts an agent's whole config (file or stdin) through the account service's PUT route and
 * prints what the service stored, as it shows it: every secret redacted, defaults filled in.
 */
export async function putAgent(context: CliContext, agentId: string, options: CommonOptions & { file: string }): Promise<void> {
  const config = await readConfigFile(context, options.file);
  const { accountService } = await openAccountSession(context, options.profile);
  const agent = await accountService.send<Agent>('PUT', agentPath(agentId), { body: { config } });
  if (options.json) return printJson(context.stdout, agent);
  printText(context.stdout, `Saved agent ${agent.agentId} (tools: ${enabledTools(agent)}).`);
  printText(context.stdout, `config:\n${JSON.stringify(agent.config, null, 2)}`);
}

export async function deleteAgent(context: CliContext, agentId: string, options: CommonOptions): Promise<void> {
  const { accountService } = await openAccountSession(context, options.profile);
  await accountService.send('DELETE', agentPath(agentId));
  if (options.json) printJson(context.stdout, { agentId, deleted: true });
  else printText(context.stdout, `Deleted agent ${agentId}.`);
}

/** A completion webhook delivery as `GET /agents/{agentId}/webhook-deliveries` lists it. */
export interface WebhookDelivery {
  deliveryId: string;
  eventId: string;
  eventStatus: string;
  state: string;
  attempts: { attempt: number; statusCode?: number; error?: string }[];
  nextAttemptAt?: string;
  error?: string;
  updatedAt: string;
}

/** The last attempt's outcome, or why the delivery ended without one. */
function lastOutcome(delivery: WebhookDelivery): string {
  const last = delivery.attempts.at(-1);
  if (!last) return delivery.error ?? '-';
  return last.statusCode !== undefined ? `HTTP ${last.statusCode}` : (last.error ?? '-');
}

export async function listWebhookDeliveries(context: CliContext, agentId: string, options: CommonOptions & { limit?: string }): Promise<void> {
  if (options.limit !== undefined && !/^\d{1,3}$/.test(options.limit)) throw new CliError('--limit must be a number from 1 to 200');
  const { agentService } = await openAgentSession(context, options.profile);
  const query = options.limit ? `?limit=${options.limit}` : '';
  const reply = await agentService.send<{ deliveries: WebhookDelivery[] }>('GET', `/agents/${encodeURIComponent(agentId)}/webhook-deliveries${query}`);
  if (options.json) return printJson(context.stdout, reply);
  if (reply.deliveries.length === 0) return printText(context.stdout, `No completion webhook deliveries for ${agentId} (config.webhooks.completion names the receiver).`);
  const rows = reply.deliveries.map((delivery) => [delivery.eventId, delivery.eventStatus, delivery.state, String(delivery.attempts.length), lastOutcome(delivery), delivery.updatedAt]);
  printText(context.stdout, formatTable(['EVENT', 'FINISH', 'STATE', 'ATTEMPTS', 'LAST', 'UPDATED'], rows));
}

export function agentCommand(context: CliContext): Command {
  const list = withJsonOption(new Command('list').description("list the account's agents")).action(
    async (_options: unknown, command: Command) => listAgents(context, commandOptions(command)),
  );
  const get = withJsonOption(new Command('get').description('show one agent and its (redacted) config').argument('<agentId>')).action(
    async (agentId: string, _options: unknown, command: Command) => getAgent(context, agentId, commandOptions(command)),
  );
  const put = withJsonOption(
    new Command('put')
      .description('create or replace an agent from a config file')
      .argument('<agentId>')
      .requiredOption('--file <path>', 'JSON file holding the config object ("-" reads stdin)'),
  ).action(async (agentId: string, _options: unknown, command: Command) =>
    putAgent(context, agentId, commandOptions<{ file: string }>(command)),
  );
  const remove = withJsonOption(new Command('delete').description('delete an agent').argument('<agentId>')).action(
    async (agentId: string, _options: unknown, command: Command) => deleteAgent(context, agentId, commandOptions(command)),
  );
  const webhooks = withJsonOption(
    new Command('webhooks').description("list an agent's completion webhook deliveries, newest first").argument('<agentId>').option('--limit <n>', 'how many (1-200, default 20)'),
  ).action(async (agentId: string, _options: unknown, command: Command) => listWebhookDeliveries(context, agentId, commandOptions<{ limit?: string }>(command)));
  return new Command('agent').description("manage the account's agents").addCommand(list).addCommand(get).addCommand(put).addCommand(remove).addCommand(webhooks);
}
