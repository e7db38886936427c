import { Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../cli-context.js';
import { formatSeconds } from '../deploy/deploy-steps.js';
import { stopStage } from '../deploy/local-target.js';
import { selectStageFolder } from '../deploy/stage-folder.js';
import { printJson, printText } from '../output.js';
import { commandOptions, withJsonOption } from '../session.js';

export interface StopOptions {
  stage?: string;
  json?: boolean;
  /** Seconds between SIGTERM and SIGKILL. */
  timeout?: number;
}

/** Stops every replica of a deployed stage (SIGTERM, then SIGKILL after the timeout). The data stays. */
export async function runStop(context: CliContext, options: StopOptions): Promise<void> {
  const folder = selectStageFolder(context.env, options.stage);
  const stopped = await stopStage(folder, { timeoutMs: (options.timeout ?? 10) * 1000 });
  if (options.json) {
    printJson(context.stdout, {
      stage: folder.stage,
      stopped: stopped !== undefined,
      ...(stopped ? { pid: stopped.pid, signal: stopped.signal, elapsedMs: stopped.elapsedMs, replicas: stopped.replicas } : {}),
    });
  } else if (stopped && stopped.replicas.length > 1) {
    const replicas = stopped.replicas.map((replica) => `replica ${replica.index} (pid ${replica.pid}, ${replica.signal}, ${formatSeconds(replica.elapsedMs)})`);
    printText(context.stdout, `Stopped stage ${folder.stage}: ${replicas.join(', ')}.`);
  } else if (stopped) {
    printText(context.stdout, `Stopped stage ${folder.stage} (pid ${stopped.pid}, ${stopped.signal}, ${formatSeconds(stopped.elapsedMs)}).`);
  } else {
    printText(context.stdout, `Stage ${folder.stage} is not running.`);
  }
}

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0) throw new InvalidArgumentError('expected a number of seconds.');
  return seconds;
}

export function stopCommand(context: CliContext): Command {
  return withJsonOption(
    new Command('stop')
      .description('stop a deployed stage\'s services (the stage folder and its data stay)')
      .option('--stage <name>', 'stage name (env SST_STAGE, else local)')
      .option('--timeout <seconds>', 'seconds to wait after SIGTERM before SIGKILL', parseSeconds, 10),
  ).action(async (_options: unknown, command: Command) => {
    const { stage, json, timeout } = commandOptions<StopOptions>(command);
    await runStop(context, { stage, json, timeout });
  });
}
