import { open, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { commandHint } from '../command-hint.js';
import { lastLines } from '../deploy/file-tail.js';
import { replicaFolder, stageReplicaIndexes } from '../deploy/local-target.js';
import { interleaveReplicaLogs } from '../deploy/replica-logs.js';
import { selectStageFolder } from '../deploy/stage-folder.js';
import { parsePositiveInteger } from '../parse-values.js';
import { commandOptions } from '../session.js';

export interface LogsOptions {
  stage?: string;
  /** Only this replica's log (1-based), unprefixed. Default: every replica's, interleaved. */
  replica?: number;
  follow?: boolean;
  /** How many of the last lines to print first. */
  lines?: number;
  /** How often `--follow` looks for new lines. */
  pollMs?: number;
}

/** The most of each log read for the first lines. */
const tailBytes = 1024 * 1024;

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

interface LogSource {
  index: number;
  path: string;
  /** How far it has been printed. */
  position: number;
  /** A line begun but not yet ended (follow mode, several logs). */
  partial: string;
}

const fileSize = async (path: string): Promise<number | undefined> => (await stat(path).catch(() => undefined))?.size;

/**
 * Prints the last lines of the stage's service log; with `follow`, then new lines until Ctrl-C.
 * A stage of several replicas has a log per replica: `replica` picks one, otherwise every
 * replica's lines are interleaved by time, each prefixed with `[replica N]`.
 */
export async function runLogs(context: CliContext, options: LogsOptions): Promise<void> {
  const folder = selectStageFolder(context.env, options.stage);
  const indexes = options.replica === undefined ? await stageReplicaIndexes(folder) : [options.replica];
  const sources: LogSource[] = [];
  for (const index of indexes) {
    const path = replicaFolder(folder, index).logFile;
    const size = await fileSize(path);
    if (size !== undefined) sources.push({ index, path, position: size, partial: '' });
  }
  if (sources.length === 0) {
    const which = options.replica === undefined ? '' : ` for replica ${options.replica}`;
    throw new CliError(`Stage ${folder.stage} has no log${which} (${replicaFolder(folder, indexes[0] ?? 1).logFile}): run ${commandHint(context.env)('deploy', '--stage', folder.stage)} first.`);
  }
  const prefixed = sources.length > 1;
  const lineCount = options.lines ?? 100;
  const texts = await Promise.all(sources.map(async (source) => ({ index: source.index, text: await readRange(source.path, Math.max(0, source.position - tailBytes), source.position) })));
  const interleaved = prefixed ? interleaveReplicaLogs(texts) : [];
  const text = prefixed ? interleaved.slice(Math.max(0, interleaved.length - lineCount)).join('\n') : lastLines(texts[0]!.text, lineCount);
  if (text) context.stdout.write(`${text}\n`);
  if (!options.follow) return;

  let stopped = false;
  void context.waitForShutdown().then(() => {
    stopped = true;
  });
  while (!stopped) {
    await sleep(options.pollMs ?? 250);
    const fresh: { index: number; text: string }[] = [];
    for (const source of sources) {
      const current = (await fileSize(source.path)) ?? source.position;
      // A log that shrank was replaced: start again from its beginning.
      if (current < source.position) source.position = 0;
      if (current <= source.position) continue;
      const added = await readRange(source.path, source.position, current);
      source.position = current;
      if (!prefixed) {
        context.stdout.write(added);
        continue;
      }
      // Only whole lines are prefixed and printed; the rest waits for its end.
      const combined = source.partial + added;
      const end = combined.lastIndexOf('\n') + 1;
      source.partial = combined.slice(end);
      if (end > 0) fresh.push({ index: source.index, text: combined.slice(0, end) });
    }
    if (fresh.length > 0) context.stdout.write(`${interleaveReplicaLogs(fresh).join('\n')}\n`);
  }
}

export function logsCommand(context: CliContext): Command {
  return new Command('logs')
    .description('print a deployed stage\'s service log (JSON lines); several replicas\' logs interleaved by time, each line prefixed with its replica')
    .option('--stage <name>', 'stage name (env SST_STAGE, else local)')
    .option('--replica <index>', 'only this replica\'s log (1 is the first), without prefixes', parsePositiveInteger)
    .option('-f, --follow', 'keep printing new lines until Ctrl-C')
    .option('-n, --lines <count>', 'how many of the last lines to print', parsePositiveInteger, 100)
    .action(async (_options: unknown, command: Command) => {
      const { stage, replica, follow, lines } = commandOptions<LogsOptions>(command);
      await runLogs(context, { stage, replica, follow, lines });
    });
}
