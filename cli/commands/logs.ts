import { open, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { commandHint } from '../command-hint.js';
import { lastLines } from '../deploy/file-tail.js';
import { selectStageFolder } from '../deploy/stage-folder.js';
import { parsePositiveInteger } from '../parse-values.js';
import { commandOptions } from '../session.js';

export interface LogsOptions {
  stage?: string;
  follow?: boolean;
  /** How many of the last lines to print first. */
  lines?: number;
  /** How often `--follow` looks for new lines. */
  pollMs?: number;
}

async function readRange(path: string, start: number, end: number): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(end - start);
    await handle.read(buffer, 0, buffer.length, start);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Prints the last lines of the stage's service log; with `follow`, then new lines until Ctrl-C. */
export async function runLogs(context: CliContext, options: LogsOptions): Promise<void> {
  const folder = selectStageFolder(context.env, options.stage);
  let size: number;
  try {
    size = (await stat(folder.logFile)).size;
  } catch {
    throw new CliError(`Stage ${folder.stage} has no log (${folder.logFile}): run ${commandHint(context.env)('deploy', '--stage', folder.stage)} first.`);
  }
  const start = Math.max(0, size - 1024 * 1024);
  const text = lastLines(await readRange(folder.logFile, start, size), options.lines ?? 100);
  if (text) context.stdout.write(`${text}\n`);
  if (!options.follow) return;

  let stopped = false;
  void context.waitForShutdown().then(() => {
    stopped = true;
  });
  let position = size;
  while (!stopped) {
    await sleep(options.pollMs ?? 250);
    const current = (await stat(folder.logFile).catch(() => undefined))?.size ?? position;
    // A log that shrank was replaced: start again from its beginning.
    if (current < position) position = 0;
    if (current > position) {
      context.stdout.write(await readRange(folder.logFile, position, current));
      position = current;
    }
  }
}

export function logsCommand(context: CliContext): Command {
  return new Command('logs')
    .description('print a deployed stage\'s service log (JSON lines)')
    .option('--stage <name>', 'stage name (env SST_STAGE, else local)')
    .option('-f, --follow', 'keep printing new lines until Ctrl-C')
    .option('-n, --lines <count>', 'how many of the last lines to print', parsePositiveInteger, 100)
    .action(async (_options: unknown, command: Command) => {
      const { stage, follow, lines } = commandOptions<LogsOptions>(command);
      await runLogs(context, { stage, follow, lines });
    });
}
