import type { CliContext } from '../cli-context.js';
import { CliError } from '../cli-error.js';
import { printJson } from '../output.js';
import type { ApprovalAnswer, ChatStreamSource } from './chat-stream-source.js';
import { ChatSession, type ApprovalPolicy } from './chat-session.js';
import { pendingApprovals, summarizeTurn, type ApprovalRequest, type ChatTranscript } from './chat-transcript.js';
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
}

function lastError(transcript: ChatTranscript): string | undefined {
  const entry = transcript.entries.findLast((candidate) => candidate.kind === 'error');
  return entry?.kind === 'error' ? entry.errorText : undefined;
}

/**
 * `harness chat <agentId> -m TEXT`: sends one message, prints the reply as it streams,
 * answers approvals by policy (or asks at a terminal), and fails (exit 1) unless the turn
 * completes or waits for async tools.
 */
export async function runOneShotChat(context: CliContext, options: OneShotChatOptions): Promise<void> {
  const printer = createStreamPrinter(context);
  const session = new ChatSession({
    source: options.source,
    conversationKey: options.conversationKey,
    approvalPolicy: options.approvalPolicy,
    onChunk: options.json ? undefined : (chunk, transcript) => printer.onChunk(chunk, transcript),
  });
  let transcript: ChatTranscript;
  try {
    transcript = await session.sendText(options.message);
    while (transcript.status === 'awaiting_approval' && options.askApprovals && pendingApprovals(transcript).length > 0) {
      printer.finish();
      transcript = await session.answerApprovals(await options.askApprovals(pendingApprovals(transcript)));
    }
  } finally {
    // Ends the reply's last line even when the stream broke off, before the error line.
    printer.finish();
  }

  const status = transcript.status;
  if (options.json) {
    printJson(context.stdout, { conversationKey: options.conversationKey, status, ...summarizeTurn(transcript) });
  } else if (options.newConversation) {
    context.stderr.write(`conversation: ${options.conversationKey} (continue with: harness chat ${options.agentId} --conversation ${options.conversationKey})\n`);
  }

  if (status === 'failed') throw new CliError(`the turn failed: ${lastError(transcript) ?? 'the agent service reported a failure'}`);
  if (status === 'awaiting_approval') {
    const pending = pendingApprovals(transcript);
    const asked = pending.map((request) => `${formatApprovalQuestion(request)} (approval ${request.approvalId})`).join('; ');
    throw new CliError(
      `the agent is waiting for approval: ${asked || 'no request received'}. Pass --approve-all or --deny-all to answer approvals without a terminal (conversation ${options.conversationKey})`,
    );
  }
  if (status === 'waiting_async_tools' && !options.json) {
    context.stderr.write('The turn is waiting for async tools; their results land in the conversation.\n');
  }
}
