import { resolve } from 'node:path';
import { Command } from 'commander';
import type { RunningServices, ServeOptions as ServerServeOptions } from '../../server/serve.js';
import type { CliContext } from '../cli-context.js';
import { formatFields, printJson, printText } from '../output.js';
import { parsePort } from '../parse-values.js';
import { commandOptions, withJsonOption } from '../session.js';

/** `harness serve` options: those of `serve()` in `server/serve.ts` that the command sets. */
export type ServeOptions = Pick<ServerServeOptions, 'accountPort' | 'agentPort' | 'host' | 'dataDir' | 'stage'>;

/** What a running service hands back. */
export type RunningService = Pick<RunningServices, 'accountUrl' | 'agentUrl' | 'close'>;

export type StartService = (options: ServeOptions) => Promise<RunningService>;

// Loaded on demand: the other commands should not pay for loading the whole service.
// Logs go to stderr, so stdout carries only this command's output (the URLs, or --json).
const startService: StartService = async (options) => {
  const [{ serve }, { createProcessLogger }] = await Promise.all([import('../../server/serve.js'), import('../../server/process-logger.js')]);
  return serve({ ...options, logger: createProcessLogger(undefined, process.stderr) });
};

/** Starts both services, prints their URLs, and stops them cleanly on SIGINT or SIGTERM. */
export async function runServe(context: CliContext, options: ServeOptions & { json?: boolean }, start: StartService = startService): Promise<void> {
  const { json, ...serveOptions } = options;
  const service = await start({ ...serveOptions, dataDir: serveOptions.dataDir === undefined ? undefined : resolve(serveOptions.dataDir) });
  if (json) {
    printJson(context.stdout, { accountUrl: service.accountUrl, agentUrl: service.agentUrl });
  } else {
    printText(context.stdout, formatFields([['account service', service.accountUrl], ['agent service', service.agentUrl]]));
    printText(context.stdout, 'Press Ctrl-C to stop.');
  }
  const signal = await context.waitForShutdown();
  if (!json) printText(context.stderr, `harness: ${signal} received, stopping...`);
  await service.close();
}

export function serveCommand(context: CliContext): Command {
  return withJsonOption(
    new Command('serve')
      .description('run the account and agent services until Ctrl-C')
      .option('--account-port <port>', 'account service port (env ACCOUNT_PORT, else 4100; 0 picks a free one)', parsePort)
      .option('--agent-port <port>', 'agent service port (env AGENT_PORT, else 4200; 0 picks a free one)', parsePort)
      .option('--host <host>', 'address to listen on')
      .option('--data-dir <dir>', 'data folder (env HARNESS_DATA_DIR, else .harness/<stage>)')
      .option('--stage <name>', 'stage name (env SST_STAGE, else local)'),
  ).action(async (_options: unknown, command: Command) => {
    const { accountPort, agentPort, host, dataDir, stage, json } = commandOptions<ServeOptions>(command);
    await runServe(context, { accountPort, agentPort, host, dataDir, stage, json });
  });
}
