import { InvalidArgumentError, type Command } from 'commander';
import type { ApiClient } from '../api-client.js';
import type { CliContext } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { commandHint, verbatim, type CommandHint } from '../command-hint.js';
import { printJson, printText } from '../output.js';
import { errorText, formatPendingApprovals, replyText, type EventStatus } from './event-status.js';
import { pollEventStatus, PollStoppedError } from './poll-event-status.js';
import { createProgressReporter } from './progress-reporter.js';

/** `--wait` and its tuning flags, shared by `harness async` and `harness status`. */
export interface WaitFlags {
  wait?: boolean;
  interval: number;
  timeout: number;
}

function parseMilliseconds(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1) throw new InvalidArgumentError('expected a whole number of milliseconds, 1 or more.');
  return number;
}

function parseSeconds(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number)) throw new InvalidArgumentError('expected a whole number of seconds (0: no limit).');
  return number;
}

export function withWaitOptions(command: Command): Command {
  return command
    .option('--wait', 'poll until the event is completed, failed or awaiting approval, and print the answer')
    .option('--interval <ms>', 'pause between two status polls with --wait', parseMilliseconds, 500)
    .option('--timeout <seconds>', 'give up waiting after this long (the event goes on); 0 waits forever', parseSeconds, 600);
}

/** What the approval hint fills in; unknown parts stay as `<placeholders>`. */
export interface EventOrigin {
  agentId?: string;
  conversationKey?: string;
}

/**
 * Polls the event with a spinner (or progress lines) until it settles, and resolves with the
 * last status. Ctrl-C stops the waiting, not the event: exit 130 with the command to resume.
 */
export async function waitForEvent(context: CliContext, agentService: ApiClient, eventId: string, options: WaitFlags & { json?: boolean; profile?: string }): Promise<EventStatus> {
  const resumeCommand = commandHint(context.env, options.profile)('status', eventId, '--wait');
  const stop = new AbortController();
  let stoppedBy: string | undefined;
  void context.waitForShutdown().then((signal) => {
    stoppedBy = signal;
    stop.abort();
  });
  const reporter = await createProgressReporter(context, eventId, options);
  try {
    return await pollEventStatus(agentService, eventId, {
      intervalMs: options.interval,
      timeoutMs: options.timeout * 1000,
      signal: stop.signal,
      onUpdate: (event) => reporter.update(event),
      resumeCommand,
    });
  } catch (error) {
    if (error instanceof PollStoppedError) {
      throw new CliError(`stopped waiting (${stoppedBy ?? 'signal'}); event ${eventId} goes on in the service: ${resumeCommand}`, { exitCode: 130 });
    }
    throw error;
  } finally {
    reporter.stop();
  }
}

/**
 * How to answer pending approvals: `harness async` again, whose message is then a tool message
 * of approval responses. This works for any conversation, whichever route (chat, async, NATS) asked.
 */
export function approvalHint(hint: CommandHint, origin: EventOrigin, approvalIds: readonly string[]): string {
  const agentId = origin.agentId ?? verbatim('<agentId>');
  const conversation = origin.conversationKey ?? verbatim('<conversationKey>');
  const ids = approvalIds.length > 0 ? approvalIds : [verbatim('<approvalId>')];
  const flags = (flag: string) => ids.flatMap((approvalId) => [flag, approvalId]);
  return [
    'Answer with:',
    `  ${hint('async', agentId, '--conversation', conversation, ...flags('--approve'), '--wait')}`,
    `  ${hint('async', agentId, '--conversation', conversation, ...flags('--deny'), '--reason', verbatim('"..."'), '--wait')}`,
    '(or approve some and deny others in one command)',
  ].join('\n');
}

/**
 * Prints a settled event: the reply's text when completed; the pending approvals and the
 * command that answers them (exit 0); a failure as an error (exit 1). With `--json`, the
 * status document (a failure still exits 1).
 */
export function printSettledEvent(context: CliContext, event: EventStatus, options: EventOrigin & { json?: boolean; profile?: string }): void {
  if (options.json) {
    printJson(context.stdout, options.conversationKey === undefined ? event : { ...event, conversationKey: options.conversationKey });
  } else if (event.status === 'completed') {
    printText(context.stdout, replyText(event.result));
  } else if (event.status === 'awaiting_approval') {
    const approvals = event.pendingApprovals ?? [];
    printText(context.stdout, `Event ${event.eventId} is waiting for approval:\n${formatPendingApprovals(approvals)}`);
    printText(context.stdout, approvalHint(commandHint(context.env, options.profile), options, approvals.map((approval) => approval.approvalId)));
  }
  if (event.status === 'failed') throw new CliError(`event ${event.eventId} failed: ${errorText(event.error)}`);
  if (event.status === 'cancelled') throw new CliError(`event ${event.eventId} was cancelled`);
}
