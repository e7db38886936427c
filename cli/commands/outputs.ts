import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { formatDeployOutputs, readDeployOutputs } from '../deploy/deploy-outputs.js';
import { selectStageFolder } from '../deploy/stage-folder.js';
import { printJson, printText } from '../output.js';
import { commandOptions, withJsonOption } from '../session.js';

/** Prints the outputs of the stage's last deploy (its `outputs.json`). */
export async function runOutputs(context: CliContext, options: { stage?: string; json?: boolean }): Promise<void> {
  const outputs = await readDeployOutputs(selectStageFolder(context.env, options.stage), context.env);
  if (options.json) printJson(context.stdout, outputs);
  else printText(context.stdout, formatDeployOutputs(outputs));
}

export function outputsCommand(context: CliContext): Command {
  return withJsonOption(
    new Command('outputs')
      .description('print the outputs of a stage\'s last deploy: service URLs, table and bucket names')
      .option('--stage <name>', 'stage name (env SST_STAGE, else local)'),
  ).action(async (_options: unknown, command: Command) => {
    const { stage, json } = commandOptions<{ stage?: string }>(command);
    await runOutputs(context, { stage, json });
  });
}
