import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { commandHint, type CommandHint } from '../command-hint.js';
import { formatFields, printJson, printText } from '../output.js';
import { commandOptions, openAgentSession, withJsonOption, type CommonOptions } from '../session.js';
import { errorText, formatPendingApprovals, formatPendingAsyncTools, replyText, type EventStatus } from '../async/event-status.js';
import { statusPath } from '../async/poll-event-status.js';
import { approvalHint, printSettledEvent, waitForEvent, withWaitOptions, type WaitFlags } from '../async/wait-for-event.js';

export type StatusOptions = CommonOptions & WaitFlags;

/**
 * One status answer as `label: value` lines, then the reply's text when completed. The
 * status names the conversation but not the agent, so the approval commands keep an
 * `<agentId>` to fill in.
 */
export function formatEventStatus(event: EventStatus, hint: CommandHint): string {
  const fields: [string, string][] = [
    ['event', event.eventId],
    ['status', event.status],
  ];
  if (event.error !== undefined) fields.push(['error', errorText(event.error)]);
  if (event.pendingAsyncTools?.length) fields.push(['pending async tools', formatPendingAsyncTools(event.pendingAsyncTools)]);
  let text = formatFields(fields);
  if (event.pendingApprovals?.length) {
    text += `pending approvals:\n${formatPendingApprovals(event.pendingApprovals)}\n${approvalHint(hint, { conversationKey: typeof event.conversationKey === 'string' ? event.conversationKey : undefined }, event.pendingApprovals.map((approval) => approval.approvalId))}\n`;
  }
  if (event.status === 'completed') text += `\n${replyText(event.result)}\n`;
  return text;
}

/**
 * Shows an async event. Without `--wait`, one GET, exit 0 whatever the status (the question
 * was answered); with `--wait`, the exit code is the event's: 1 when it failed.
 */
export async function runStatus(context: CliContext, eventId: string, options: StatusOptions): Promise<void> {
  const { agentService } = await openAgentSession(context, options.profile);
  if (options.wait) {
    const event = await waitForEvent(context, agentService, eventId, options);
    return printSettledEvent(context, event, { json: options.json, profile: options.profile });
  }
  const event = await agentService.send<EventStatus>('GET', statusPath(eventId));
  if (options.json) return printJson(context.stdout, event);
  printText(context.stdout, formatEventStatus(event, commandHint(context.env, options.profile)));
}

export function statusCommand(context: CliContext): Command {
  return withJsonOption(
    withWaitOptions(
      new Command('status')
        .description('show an async event; --wait polls until it settles')
        .argument('<eventId>'),
    ),
  ).action(async (eventId: string, _options: unknown, command: Command) => runStatus(context, eventId, commandOptions<StatusOptions>(command)));
}
