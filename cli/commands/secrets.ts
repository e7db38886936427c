import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { defineInfrastructure } from '../../server/core/infrastructure.js';
import type { RuntimeSecrets } from '../../server/core/secrets/runtime-secrets.js';
import type { CliContext } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { readDeployOutputs } from '../deploy/deploy-outputs.js';
import { selectStageFolder } from '../deploy/stage-folder.js';
import { formatTable, printJson, printText } from '../output.js';
import { commandOptions, withJsonOption } from '../session.js';

const variables: Record<keyof RuntimeSecrets, string> = {
  adminSecret: 'HARNESS_ADMIN_SECRET',
  configEncryptionSecret: 'HARNESS_CONFIG_ENCRYPTION_SECRET',
};

/**
 * Prints a stage's runtime secrets: the one command that ever shows them. Generated ones
 * are read from the stage folder; one that came from the environment at deploy time was
 * never stored, so only its variable is named.
 */
export async function runSecretsShow(context: CliContext, options: { stage?: string; json?: boolean }): Promise<void> {
  const folder = selectStageFolder(context.env, options.stage);
  const names = defineInfrastructure(folder.stage).secrets;
  let stored: Partial<RuntimeSecrets>;
  try {
    stored = JSON.parse(await readFile(folder.secretsFile, 'utf8')) as Partial<RuntimeSecrets>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    stored = {};
  }
  const sources = await readDeployOutputs(folder).then((outputs) => outputs.secretSources).catch(() => undefined);
  const keys = Object.keys(variables) as (keyof RuntimeSecrets)[];
  if (keys.every((key) => stored[key] === undefined) && sources === undefined) {
    throw new CliError(`Stage ${folder.stage} has no secrets yet (${folder.secretsFile} does not exist): deploy it first.`);
  }
  const rows = keys.map((key) => {
    const fromEnvironment = sources?.[key] === 'environment';
    // An environment value overrides a stored one, so a stored value would be the wrong answer.
    const value = fromEnvironment ? null : (stored[key] ?? null);
    return { key, name: names[key], value, source: fromEnvironment ? `environment (${variables[key]})` : value === null ? 'not generated yet' : 'generated' };
  });
  if (options.json) {
    printJson(context.stdout, { stage: folder.stage, secrets: Object.fromEntries(rows.map((row) => [row.key, { name: row.name, value: row.value, source: row.source }])) });
    return;
  }
  printText(context.stdout, formatTable(['secret', 'name', 'value'], rows.map((row) => [row.key, row.name, row.value ?? `(${row.source}; not stored)`])));
}

export function secretsCommand(context: CliContext): Command {
  const show = withJsonOption(
    new Command('show')
      .description('print the stage\'s runtime secrets (admin secret, config-encryption secret)')
      .option('--stage <name>', 'stage name (env SST_STAGE, else local)'),
  ).action(async (_options: unknown, command: Command) => {
    const { stage, json } = commandOptions<{ stage?: string }>(command);
    await runSecretsShow(context, { stage, json });
  });
  return new Command('secrets').description('a deployed stage\'s runtime secrets (shown only on request)').addCommand(show);
}
