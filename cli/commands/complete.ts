import { Command, Option } from 'commander';
import type { CliContext } from '../cli-context.js';
import { ApiError, CliError, UsageError } from '../cli-error.js';
import { printJson, printText } from '../output.js';
import { readStdin } from '../read-stdin.js';
import { commandOptions, openAgentSession, withJsonOption, type CommonOptions } from '../session.js';
import type { CompletionAnswer as CompletionReply } from '../../client/index.js';

export interface CompleteOptions extends CommonOptions {
  response?: string;
  error?: string;
}

/** What `POST /async-tools/{resultId}/complete` answers: the row's status and whether the parent turn continues. */
export type { CompletionReply };

export type CompletionBody = { status: 'completed'; response: Record<string, unknown> } | { status: 'failed'; error: string };

/** `--response` must be a JSON object, as the endpoint's `response` is. */
export function parseResponseObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError('--response is not valid JSON; give a JSON object such as \'{"answer": 42}\'');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError('--response must be a JSON object such as \'{"answer": 42}\'');
  return value as Record<string, unknown>;
}

async function completionBody(context: CliContext, options: CompleteOptions): Promise<CompletionBody> {
  if (options.response === undefined && options.error === undefined) throw new UsageError('give --response JSON (completed) or --error MESSAGE (failed)');
  if (options.error !== undefined) {
    if (options.error.trim() === '') throw new UsageError('--error needs a message');
    return { status: 'failed', error: options.error };
  }
  const text = options.response === '-' ? await readStdin(context.stdin) : (options.response ?? '');
  return { status: 'completed', response: parseResponseObject(text) };
}

export function describeCompletion(reply: CompletionReply): string {
  const settled = `Settled ${reply.resultId} as ${reply.status}`;
  if (reply.continuation === 'accepted') return `${settled}; the parent turn continues now.`;
  if (reply.pendingCount) return `${settled}; the parent turn waits for ${reply.pendingCount} more async tool${reply.pendingCount === 1 ? '' : 's'}.`;
  return `${settled}; the parent turn continues once the model pass that dispatched it has ended.`;
}

/** Settles one async tool result as a worker would: `POST /async-tools/{resultId}/complete`. */
export async function runComplete(context: CliContext, resultId: string, options: CompleteOptions): Promise<void> {
  const body = await completionBody(context, options);
  const { agentService } = await openAgentSession(context, options.profile);
  let reply: CompletionReply;
  try {
    reply = await agentService.send<CompletionReply>('POST', `/async-tools/${encodeURIComponent(resultId)}/complete`, { body });
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) throw new CliError(`async tool result ${resultId} is already settled; a result is settled once (conflict, HTTP 409)`, { cause: error });
    if (error instanceof ApiError && error.status === 404) throw new CliError(`no async tool result ${resultId} for this account (not_found, HTTP 404)`, { cause: error });
    throw error;
  }
  if (options.json) return printJson(context.stdout, reply);
  printText(context.stdout, describeCompletion(reply));
}

export function completeCommand(context: CliContext): Command {
  return withJsonOption(
    new Command('complete')
      .description('settle an async tool result, as an external worker does')
      .argument('<resultId>')
      .addOption(new Option('--response <json>', 'complete it with this JSON object as the response ("-" reads it from stdin)').conflicts('error'))
      .addOption(new Option('--error <message>', 'fail it with this error message')),
  ).action(async (resultId: string, _options: unknown, command: Command) => runComplete(context, resultId, commandOptions<CompleteOptions>(command)));
}
