import { Command, InvalidArgumentError } from 'commander';
import type { CliContext } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { formatFields, printJson, printText } from '../output.js';
import { parsePort } from '../parse-values.js';
import { commandOptions, withJsonOption } from '../session.js';
import { startMockWorker, type MockWorkerOptions } from '../../mock-worker/mock-worker.js';

export interface MockWorkerCommandOptions {
  port?: number;
  host?: string;
  delay?: number;
  failRate?: number;
  json?: boolean;
}

function parseDelay(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number)) throw new InvalidArgumentError('expected a whole number of milliseconds, 0 or more.');
  return number;
}

function parseRate(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0 || number > 1) throw new InvalidArgumentError('expected a number from 0 to 1.');
  return number;
}

/** Runs the mock worker until SIGINT/SIGTERM; its log lines go to stderr. */
export async function runMockWorker(context: CliContext, options: MockWorkerCommandOptions, start: typeof startMockWorker = startMockWorker): Promise<void> {
  const workerOptions: MockWorkerOptions = {
    port: options.port ?? 4300,
    host: options.host,
    delayMs: options.delay,
    failRate: options.failRate,
    logger: (line) => context.stderr.write(`${line}\n`),
  };
  let worker: Awaited<ReturnType<typeof startMockWorker>>;
  try {
    worker = await start(workerOptions);
  } catch (error) {
    throw new CliError(`mock worker: ${(error as Error).message}`, { cause: error });
  }
  if (options.json) {
    printJson(context.stdout, { url: worker.url, dispatchUrl: worker.dispatchUrl });
  } else {
    printText(context.stdout, formatFields([['mock worker', worker.url], ['dispatch url', worker.dispatchUrl]]));
    printText(
      context.stdout,
      `Set test_external_async's workerUrl to ${worker.dispatchUrl}; its completionBaseUrl must be the agent service (e.g. http://127.0.0.1:4200), not this worker.\nPress Ctrl-C to stop.`,
    );
  }
  const signal = await context.waitForShutdown();
  if (!options.json) printText(context.stderr, `harness: ${signal} received, stopping...`);
  await worker.close();
}

export function mockWorkerCommand(context: CliContext): Command {
  return withJsonOption(
    new Command('mock-worker')
      .description('run the external worker for external-dispatch tools until Ctrl-C')
      .option('--port <port>', 'port to listen on (0 picks a free one)', parsePort, 4300)
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .option('--delay <ms>', 'how long each dispatch "works" before its completion is sent', parseDelay, 200)
      .option('--fail-rate <x>', 'share of dispatches completed as failed, 0 to 1', parseRate, 0),
  ).action(async (_options: unknown, command: Command) => {
    const { port, host, delay, failRate, json } = commandOptions<MockWorkerCommandOptions>(command);
    await runMockWorker(context, { port, host, delay, failRate, json });
  });
}
