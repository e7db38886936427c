import { Command } from 'commander';
import type { CliContext } from './cli-context.js';
import { defaultProfileName } from './command-hint.js';
import { accountCommand } from './commands/account.js';
import { agentCommand } from './commands/agent.js';
import { asyncCommand } from './commands/async.js';
import { channelsCommand } from './commands/channels.js';
import { chatCommand } from './commands/chat.js';
import { clusterCommand } from './commands/cluster.js';
import { completeCommand } from './commands/complete.js';
import { cronCommand } from './commands/cron.js';
import { mcpCommand } from './commands/mcp.js';
import { mockWorkerCommand } from './commands/mock-worker.js';
import { modelsCommand } from './commands/models.js';
import { serveCommand } from './commands/serve.js';
import { statusCommand } from './commands/status.js';
import { cancelCommand } from './commands/cancel.js';
import { toolsCommand } from './commands/tools.js';
import { usageCommand } from './commands/usage.js';
import { workspaceCommand } from './commands/workspace.js';
import { deployCommand } from './commands/deploy.js';
import { logsCommand } from './commands/logs.js';
import { outputsCommand } from './commands/outputs.js';
import { secretsCommand } from './commands/secrets.js';
import { stopCommand } from './commands/stop.js';
import { tracesCommand } from './commands/traces.js';

/** Applies a setting to a command and every subcommand below it. */
function everyCommand(command: Command, apply: (command: Command) => void): void {
  apply(command);
  for (const subcommand of command.commands) everyCommand(subcommand, apply);
}

/**
 * The `harness` program. It only adds commands and the global options; each command lives
 * in `cli/commands/<name>.ts`. Commander's own usage errors are thrown (not exited on) and
 * printed as one `harness: ...` line.
 */
export function buildProgram(context: CliContext, version = '0.0.0'): Command {
  const program = new Command('harness')
    .description('run the harness service, manage accounts, agents and tools, and chat with agents')
    .version(version, '-V, --version')
    .option('--profile <name>', 'saved profile to use (env HARNESS_PROFILE)', context.env.HARNESS_PROFILE || defaultProfileName)
    .addCommand(serveCommand(context))
    .addCommand(accountCommand(context))
    .addCommand(agentCommand(context))
    .addCommand(modelsCommand(context))
    .addCommand(toolsCommand(context))
    .addCommand(mcpCommand(context))
    .addCommand(channelsCommand(context))
    .addCommand(workspaceCommand(context))
    .addCommand(asyncCommand(context))
    .addCommand(cronCommand(context))
    .addCommand(statusCommand(context))
    .addCommand(cancelCommand(context))
    .addCommand(usageCommand(context))
    .addCommand(completeCommand(context))
    .addCommand(mockWorkerCommand(context))
    .addCommand(chatCommand(context))
    .addCommand(deployCommand(context))
    .addCommand(stopCommand(context))
    .addCommand(clusterCommand(context))
    .addCommand(logsCommand(context))
    .addCommand(outputsCommand(context))
    .addCommand(secretsCommand(context))
    .addCommand(tracesCommand(context));

  everyCommand(program, (command) => {
    command.exitOverride().configureOutput({
      writeOut: (text) => context.stdout.write(text),
      writeErr: (text) => context.stderr.write(text),
      outputError: (text, write) => write(`harness: ${text.replace(/^error: /, '')}`),
    });
  });
  return program;
}
