import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { runDeploy, type DeployOptions } from '../deploy/run-deploy.js';
import { parsePort, parsePositiveInteger } from '../parse-values.js';
import { commandOptions, withJsonOption } from '../session.js';

export function deployCommand(context: CliContext): Command {
  return withJsonOption(
    new Command('deploy')
      .description('typecheck, lint, build, then (re)start the stage\'s services detached and print the outputs')
      .option('--stage <name>', 'stage name (env SST_STAGE, else local)')
      .option('--skip-checks', 'skip typecheck and lint (tests and quick iterations)')
      .option('--skip-build', 'start what is already in dist/ instead of building')
      .option('--account-port <port>', 'account service port (env ACCOUNT_PORT, else a per-stage default; 0 picks a free one); replica N gets port + N - 1', parsePort)
      .option('--agent-port <port>', 'agent service port (env AGENT_PORT, else a per-stage default; 0 picks a free one); replica N gets port + N - 1', parsePort)
      .option('--replicas <count>', 'how many harness serve processes run the stage (env HARNESS_REPLICAS, else 1; more than 1 needs --database-url)', parsePositiveInteger)
      .option('--database-url <url>', 'PostgreSQL database the replicas share, postgres://... (env HARNESS_DATABASE_URL; never printed with its password)')
      .option('--nats-url <urls>', 'NATS server or cluster (comma-separated) the replicas share (env NATS_URL; printed without user information)'),
  ).action(async (_options: unknown, command: Command) => {
    const { stage, json, skipChecks, skipBuild, accountPort, agentPort, replicas, databaseUrl, natsUrl } = commandOptions<DeployOptions>(command);
    await runDeploy(context, { stage, json, skipChecks, skipBuild, accountPort, agentPort, replicas, databaseUrl, natsUrl });
  });
}
