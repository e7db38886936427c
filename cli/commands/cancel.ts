import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { formatFields, printJson, printText } from '../output.js';
import { commandOptions, openAgentSession, withJsonOption, type CommonOptions } from '../session.js';
import type { CancelAnswer } from '../../client/index.js';

export interface CancelOptions extends CommonOptions {
  conversation?: string;
  agent?: string;
}

/** The service's answer to a cancel request. */
export type { CancelAnswer };

/** The cancel route of an event, or of a conversation of an agent. */
export function cancelPath(target: { eventId: string } | { agentId: string; conversationKey: string }): string {
  if ('eventId' in target) return `/status/${encodeURIComponent(target.eventId)}/cancel`;
  return `/agents/${encodeURIComponent(target.agentId)}/conversations/${encodeURIComponent(target.conversationKey)}/cancel`;
}

const stateWords: Record<string, string> = {
  running: 'the running turn stops; its stream ends with status cancelled',
  waiting: 'the run was waiting; what it waited for is closed',
  queued: 'the request had not started; it will not run',
};

export function formatCancelAnswer(answer: CancelAnswer): string {
  const fields: [string, string][] = [['cancelled', answer.state ? (stateWords[answer.state] ?? answer.state) : 'yes']];
  if (answer.eventId) fields.push(['event', answer.eventId]);
  if (answer.conversationKey) fields.push(['conversation', answer.conversationKey]);
  if (answer.closedApprovals?.length) fields.push(['closed approvals', answer.closedApprovals.join(', ')]);
  if (answer.closedAsyncTools?.length) fields.push(['closed async tools', answer.closedAsyncTools.join(', ')]);
  return formatFields(fields);
}

/** Cancels a run: `<eventId>`, or `--conversation <key> --agent <id>`. Nothing running is the service's 409, exit 1. */
export async function runCancel(context: CliContext, eventId: string | undefined, options: CancelOptions): Promise<void> {
  const byConversation = options.conversation !== undefined || options.agent !== undefined;
  if (byConversation && (options.conversation === undefined || options.agent === undefined)) throw new CliError('--conversation and --agent go together', { exitCode: 2 });
  if (byConversation === (eventId !== undefined)) throw new CliError('name an <eventId>, or --conversation <key> with --agent <agentId>', { exitCode: 2 });
  const { agentService } = await openAgentSession(context, options.profile);
  const path = eventId !== undefined ? cancelPath({ eventId }) : cancelPath({ agentId: options.agent!, conversationKey: options.conversation! });
  const answer = await agentService.send<CancelAnswer>('POST', path);
  if (options.json) return printJson(context.stdout, answer);
  printText(context.stdout, formatCancelAnswer(answer));
}

export function cancelCommand(context: CliContext): Command {
  return withJsonOption(
    new Command('cancel')
      .description('cancel a run: a running turn stops, a waiting one is closed (by event id, or by conversation)')
      .argument('[eventId]')
      .option('--conversation <key>', "cancel what runs on this conversation (with --agent)")
      .option('--agent <agentId>', 'the agent of --conversation'),
  ).action(async (eventId: string | undefined, _options: unknown, command: Command) => runCancel(context, eventId, commandOptions<CancelOptions>(command)));
}
