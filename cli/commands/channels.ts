import { createInterface } from 'node:readline/promises';
import { Command } from 'commander';
import { channelProviders } from '../../server/core/channels/channel-registry.js';
import type { CliContext } from '../cli-context.js';
import { commandHint, verbatim } from '../command-hint.js';
import { CliError, UsageError } from '../cli-error.js';
import { formatTable, printJson, printText } from '../output.js';
import { readStdin } from '../read-stdin.js';
import { commandOptions, openAccountSession, withJsonOption, type CommonOptions } from '../session.js';
import {
  checkProvider,
  collectName,
  collectSetting,
  describeSetting,
  generateVerifyToken,
  registrationHints,
  secretsFromLines,
  webhookUrl,
} from '../channels/channel-settings.js';
import { agentPath, type Agent } from './agent.js';

type ChannelSettings = Record<string, unknown>;

function channelsOf(agent: Agent): Record<string, ChannelSettings> {
  const channels = (agent.config as { channels?: unknown }).channels;
  return typeof channels === 'object' && channels !== null ? (channels as Record<string, ChannelSettings>) : {};
}

/** Reads one line per named secret: prompted one by one at a terminal, else from piped stdin. */
async function readSecrets(context: CliContext, names: string[]): Promise<Record<string, string>> {
  if (names.length === 0) return {};
  if (!context.stdin.isTTY) return secretsFromLines(names, await readStdin(context.stdin));
  const prompt = createInterface({ input: context.stdin, output: context.stderr as NodeJS.WritableStream, terminal: false });
  try {
    const lines: string[] = [];
    for (const name of names) lines.push(await prompt.question(`${name} (then Enter): `));
    return secretsFromLines(names, lines.join('\n'));
  } finally {
    prompt.close();
  }
}

export interface SetChannelOptions extends CommonOptions {
  option?: Record<string, string>;
  secretStdin?: string[];
  unset?: string[];
}

/** Merges the given settings into `config.channels.<provider>` and prints the webhook URL to register. */
export async function setChannel(context: CliContext, agentId: string, providerName: string, options: SetChannelOptions): Promise<void> {
  const provider = checkProvider(providerName);
  const settings: Record<string, string | null> = { ...options.option };
  for (const name of options.unset ?? []) {
    if (Object.hasOwn(settings, name)) throw new UsageError(`${name} is both set and unset`);
    settings[name] = null;
  }
  const secretNames = options.secretStdin ?? [];
  for (const name of secretNames) if (Object.hasOwn(settings, name)) throw new UsageError(`${name} is given twice (--secret-stdin and --option/--unset)`);
  const { profile, accountService } = await openAccountSession(context, options.profile);
  Object.assign(settings, await readSecrets(context, secretNames));

  let verifyToken = typeof settings.verifyToken === 'string' ? settings.verifyToken : undefined;
  let generated = false;
  if (provider === 'pancake' && verifyToken === undefined) {
    const current = await accountService.send<Agent>('GET', agentPath(agentId));
    if (channelsOf(current).pancake?.verifyToken === undefined) {
      // Pancake signs nothing: the URL's token is the only check, so there must be one.
      verifyToken = generateVerifyToken();
      settings.verifyToken = verifyToken;
      generated = true;
    }
  }
  if (Object.keys(settings).length === 0) throw new UsageError('nothing to change: give --option key=value, --secret-stdin <name> or --unset <name>');

  const agent = await accountService.send<Agent>('PATCH', agentPath(agentId), {
    body: { config: { channels: { [provider]: settings } } },
    contentType: 'application/merge-patch+json',
  });
  const stored = channelsOf(agent)[provider];
  if (!stored) throw new CliError(`the service accepted the change but agent ${agentId} shows no ${provider} channel`);
  const url = webhookUrl(profile.agentUrl, profile.accountId, agent.agentId, provider, verifyToken);
  if (options.json) {
    printJson(context.stdout, { agentId: agent.agentId, provider, settings: stored, webhookUrl: url, ...(generated ? { verifyTokenGenerated: true } : {}) });
    return;
  }
  const lines = [`Channel ${provider} set on agent ${agent.agentId}.`, `Webhook URL to register with ${provider}:`, `  ${url}`, registrationHints[provider]];
  if (generated) lines.push('A new verifyToken was generated; it is in the URL above (and stored encrypted).');
  if (provider === 'pancake' && verifyToken === undefined) lines.push('The stored verifyToken is not shown: put it in place of <verifyToken>, or set a new one with --secret-stdin verifyToken.');
  printText(context.stdout, lines.join('\n'));
}

export async function listChannels(context: CliContext, agentId: string, options: CommonOptions): Promise<void> {
  const { profile, accountService } = await openAccountSession(context, options.profile);
  const agent = await accountService.send<Agent>('GET', agentPath(agentId));
  const channels = Object.entries(channelsOf(agent)).map(([provider, settings]) => ({
    provider,
    settings,
    webhookUrl: webhookUrl(profile.agentUrl, profile.accountId, agent.agentId, provider),
  }));
  if (options.json) return printJson(context.stdout, { agentId: agent.agentId, channels });
  if (channels.length === 0) {
    return printText(context.stdout, `Agent ${agent.agentId} has no channels: add one with \`${commandHint(context.env, options.profile)('channels', 'set', agent.agentId, verbatim('<provider> ...'))}\`.`);
  }
  const rows = channels.map((channel) => [
    channel.provider,
    Object.entries(channel.settings)
      .map(([name, value]) => describeSetting(name, value))
      .join(' '),
    channel.webhookUrl,
  ]);
  printText(context.stdout, formatTable(['PROVIDER', 'SETTINGS', 'WEBHOOK URL'], rows));
}

export async function removeChannel(context: CliContext, agentId: string, providerName: string, options: CommonOptions): Promise<void> {
  const provider = checkProvider(providerName);
  const { accountService } = await openAccountSession(context, options.profile);
  const agent = await accountService.send<Agent>('PATCH', agentPath(agentId), {
    body: { config: { channels: { [provider]: null } } },
    contentType: 'application/merge-patch+json',
  });
  if (options.json) return printJson(context.stdout, { agentId: agent.agentId, provider, removed: true });
  printText(context.stdout, `Channel ${provider} removed from agent ${agent.agentId}; its webhooks now get 404.`);
}

export function channelsCommand(context: CliContext): Command {
  const providers = channelProviders.join(', ');
  const set = withJsonOption(
    new Command('set')
      .description("set a channel's settings (only the fields given) and print the webhook URL to register")
      .argument('<agentId>')
      .argument('<provider>', providers)
      .option('--option <key=value>', 'a non-secret setting (pageId, applicationId, publicKey, apiBaseUrl...); repeatable', collectSetting)
      .option('--secret-stdin <name>', 'read this secret from stdin, one line per named secret in order; repeatable', collectName)
      .option('--unset <name>', 'remove a setting (e.g. apiBaseUrl); repeatable', collectName),
  ).action(async (agentId: string, provider: string, _options: unknown, command: Command) =>
    setChannel(context, agentId, provider, commandOptions<SetChannelOptions>(command)),
  );
  const list = withJsonOption(new Command('list').description("show an agent's channels and their webhook URLs").argument('<agentId>')).action(
    async (agentId: string, _options: unknown, command: Command) => listChannels(context, agentId, commandOptions(command)),
  );
  const remove = withJsonOption(new Command('remove').description('remove a channel from an agent').argument('<agentId>').argument('<provider>', providers)).action(
    async (agentId: string, provider: string, _options: unknown, command: Command) => removeChannel(context, agentId, provider, commandOptions(command)),
  );
  return new Command('channels').description("connect an agent to chat platforms (webhooks)").addCommand(set).addCommand(list).addCommand(remove);
}
