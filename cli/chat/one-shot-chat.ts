import type { CliContext } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { verbatim, type CommandHint, type HintArgument } from '../command-hint.js';
import { printJson } from '../output.js';
import type { ApprovalAnswer, ChatStreamSource } from './chat-stream-source.js';
import { ChatSession, type ApprovalPolicy } from './chat-session.js';
import { emptyTranscript, pendingApprovals, summarizeTurn, type ApprovalRequest, type ChatTranscript } from './chat-transcript.js';
import { createStreamPrinter } from './stream-printer.js';
import { formatApprovalQuestion } from './tool-line.js';

export interface OneShotChatOptions {
  source: ChatStreamSource;
  agentId: string;
  conversationKey: string;
  /** The key was made up for this run: print it so the user can continue. */
  newConversation: boolean;
  message: string;
  approvalPolicy?: ApprovalPolicy;
  json?: boolean;
  /** Asks the user about approval requests; absent when there is no terminal to ask at. */
  askApprovals?: (requests: readonly ApprovalRequest[]) => Promise<ApprovalAnswer[]>;
  /** The conversation as stored, when continuing one (see `transcriptFromHistory`). */
  history?: ChatTranscript;
  /** Builds the commands printed for the user, for this invocation and profile. */
  hint: CommandHint;
}

function lastError(transcript: ChatTranscript): string | undefined {
  const entry = transcript.entries.findLast((candidate) => candidate.kind === 'error');
  return entry?.kind === 'error' ? entry.errorText : undefined;
}

function describeApprovals(requests: readonly ApprovalRequest[]): string {
  return requests.map((request) => `${formatApprovalQuestion(request)} (approval ${request.approvalId})`).join('; ');
}

/** The commands that answer the approvals without a terminal: `harness async` with the tool message. */
function answerCommands(options: OneShotChatOptions, requests: readonly ApprovalRequest[]): string {
  const flags = (flag: string) => requests.flatMap((request) => [flag, request.approvalId]);
  const command = (...args: HintArgument[]) => options.hint('async', options.agentId, '--conversation', options.conversationKey, ...args);
  return `\`${command(...flags('--approve'), '--wait')}\` or \`${command(...flags('--deny'), '--reason', verbatim('"..."'), '--wait')}\``;
}

const policyFlag = (policy: ApprovalPolicy): string => (policy === 'approve-all' ? '--approve-all' : '--deny-all');

/**
 * `harness chat <agentId> -m TEXT`: sends one message, prints the reply as it streams,
 * answers approvals by policy (or asks at a terminal), and fails (exit 1) unless the turn
 * completes or waits for async tools.
 *
 * A new message on a conversation that waits for approval makes the service deny what is
 * waiting, so approvals left pending in the history are answered first, by the policy or at
 * the terminal; with neither, nothing is sent and the error says how to answer them.
 */
export async function runOneShotChat(context: CliContext, options: OneShotChatOptions): Promise<void> {
  const history = options.history ?? emptyTranscript;
  const earlier = pendingApprovals(history);
  if (earlier.length > 0 && !options.approvalPolicy && !options.askApprovals) {
    throw new CliError(
      `conversation ${options.conversationKey} is waiting for approval: ${describeApprovals(earlier)}; a new message would deny it, so nothing was sent. Answer it with ${answerCommands(options, earlier)}, or pass --approve-all or --deny-all to answer it before the message`,
    );
  }

  const printer = createStreamPrinter(context);
  const session = new ChatSession({
    source: options.source,
    conversationKey: options.conversationKey,
    transcript: history,
    approvalPolicy: options.approvalPolicy,
    onChunk: options.json ? undefined : (chunk, transcript) => printer.onChunk(chunk, transcript),
  });
  // Asks at the terminal for as long as the turn stops for approvals.
  const askWhileWaiting = async (transcript: ChatTranscript): Promise<ChatTranscript> => {
    let current = transcript;
    while (current.status === 'awaiting_approval' && options.askApprovals && pendingApprovals(current).length > 0) {
      printer.finish();
      current = await session.answerApprovals(await options.askApprovals(pendingApprovals(current)));
    }
    return current;
  };
  let transcript: ChatTranscript = history;
  try {
    if (earlier.length > 0) {
      if (options.approvalPolicy) {
        if (!options.json) context.stderr.write(`The conversation was waiting for approval: ${describeApprovals(earlier)}; answering with ${policyFlag(options.approvalPolicy)} before the message.\n`);
        transcript = await session.answerPendingApprovals();
      } else {
        transcript = await askWhileWaiting(history);
      }
    }
    // The message goes only once nothing waits: it would deny what still does.
    if (transcript.status !== 'failed' && transcript.status !== 'awaiting_approval') {
      transcript = await askWhileWaiting(await session.sendText(options.message));
    }
  } finally {
    // Ends the reply's last line even when the stream broke off, before the error line.
    printer.finish();
  }

  const status = transcript.status;
  if (options.json) {
    const answeredEarlier = new Set(earlier.map((request) => request.toolCallId));
    printJson(context.stdout, { conversationKey: options.conversationKey, status, ...summarizeTurn(transcript, history.entries.length, answeredEarlier) });
  } else if (options.newConversation) {
    context.stderr.write(`conversation: ${options.conversationKey} (continue with: ${options.hint('chat', options.agentId, '--conversation', options.conversationKey)})\n`);
  }

  if (status === 'failed') throw new CliError(`the turn failed: ${lastError(transcript) ?? 'the agent service reported a failure'}`);
  if (status === 'awaiting_approval') {
    const pending = pendingApprovals(transcript);
    throw new CliError(
      pending.length === 0
        ? `the agent is waiting for approval, but no request was received (conversation ${options.conversationKey})`
        : `the agent is waiting for approval: ${describeApprovals(pending)}. It stays pending in conversation ${options.conversationKey}; answer it with ${answerCommands(options, pending)}`,
    );
  }
  if (status === 'waiting_async_tools' && !options.json) {
    context.stderr.write('The turn is waiting for async tools; their results land in the conversation.\n');
  }
}
