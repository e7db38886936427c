import { Command, Option } from 'commander';
import type { CliContext } from '../cli-context.js';
import { UsageError } from '../cli-error.js';
import { commandHint } from '../command-hint.js';
import { formatFields, printJson, printText } from '../output.js';
import { commandOptions, openAgentSession, withJsonOption, type CommonOptions } from '../session.js';
import { printSettledEvent, waitForEvent, withWaitOptions, type WaitFlags } from '../async/wait-for-event.js';
import { newConversationKey } from './chat.js';
import type { AsyncSubmitted as AsyncAccepted } from '../../client/index.js';

export interface AsyncOptions extends CommonOptions, WaitFlags {
  message?: string;
  conversation?: string;
  approve?: string[];
  deny?: string[];
  reason?: string;
}

/** `POST /agents/{agentId}/async` answers this at once (202); the turn runs in the background. */
export type { AsyncAccepted };

/** A tool message with only `tool-approval-response` parts: an `/async` turn's approvals are answered by a new `/async` request carrying it. */
export function approvalMessage(approve: readonly string[], deny: readonly string[], reason?: string) {
  return {
    role: 'tool' as const,
    content: [
      ...approve.map((approvalId) => ({ type: 'tool-approval-response' as const, approvalId, approved: true })),
      ...deny.map((approvalId) => ({ type: 'tool-approval-response' as const, approvalId, approved: false, ...(reason === undefined ? {} : { reason }) })),
    ],
  };
}

function messageFrom(options: AsyncOptions): string | ReturnType<typeof approvalMessage> {
  const approve = options.approve ?? [];
  const deny = options.deny ?? [];
  const answers = approve.length + deny.length;
  if (options.message !== undefined && answers > 0) throw new UsageError('-m and --approve/--deny cannot be combined: send the approval answers first');
  if (options.reason !== undefined && deny.length === 0) throw new UsageError('--reason goes with --deny');
  if (answers > 0) {
    if (options.conversation === undefined) throw new UsageError('--approve/--deny need --conversation KEY (the conversation that asked for approval)');
    const both = approve.find((approvalId) => deny.includes(approvalId));
    if (both !== undefined) throw new UsageError(`approval ${both} is both approved and denied`);
    return approvalMessage(approve, deny, options.reason);
  }
  if (options.message === undefined) throw new UsageError('give a message with -m TEXT (or answer approvals with --approve/--deny ID)');
  if (options.message.trim() === '') throw new UsageError('-m needs a non-empty message');
  return options.message;
}

/** Queues one turn on the async API, then prints its event, or waits for it with `--wait`. */
export async function runAsync(context: CliContext, agentId: string, options: AsyncOptions): Promise<void> {
  const message = messageFrom(options);
  const conversationKey = options.conversation ?? newConversationKey();
  const { agentService } = await openAgentSession(context, options.profile);
  const accepted = await agentService.send<AsyncAccepted>('POST', `/agents/${encodeURIComponent(agentId)}/async`, { body: { conversationKey, message } });

  if (!options.wait) {
    if (options.json) return printJson(context.stdout, { ...accepted, conversationKey });
    printText(context.stdout, formatFields([['event', accepted.eventId], ['status url', accepted.statusUrl], ['conversation', conversationKey]]));
    printText(context.stdout, `Follow it with: ${commandHint(context.env, options.profile)('status', accepted.eventId, '--wait')}`);
    return;
  }
  // On stderr, so stdout carries only the answer; the key is how this conversation is continued.
  if (!options.json) context.stderr.write(`event ${accepted.eventId} (conversation ${conversationKey})\n`);
  const event = await waitForEvent(context, agentService, accepted.eventId, options);
  printSettledEvent(context, event, { json: options.json, agentId, conversationKey, profile: options.profile });
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function asyncCommand(context: CliContext): Command {
  return withJsonOption(
    withWaitOptions(
      new Command('async')
        .description('run one turn on the async API; --wait polls until it settles')
        .argument('<agentId>')
        .option('-m, --message <text>', 'the user message')
        .option('--conversation <key>', 'conversation to continue (default: a new cli-<time>-<random> key, printed)')
        .addOption(new Option('--approve <approvalId>', 'approve a pending tool call (repeatable; needs --conversation)').argParser(collect))
        .addOption(new Option('--deny <approvalId>', 'deny a pending tool call (repeatable; needs --conversation)').argParser(collect))
        .option('--reason <text>', 'why the --deny answers deny'),
    ),
  ).action(async (agentId: string, _options: unknown, command: Command) => runAsync(context, agentId, commandOptions<AsyncOptions>(command)));
}
