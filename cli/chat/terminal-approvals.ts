import { createInterface } from 'node:readline/promises';
import type { TextWriter } from '../cli-context.js';
import type { ApprovalAnswer } from './chat-stream-source.js';
import type { ApprovalRequest } from './chat-transcript.js';
import { formatApprovalQuestion } from './tool-line.js';

/**
 * Asks about each approval request on the terminal (for `-m` at a terminal without
 * `--approve-all`/`--deny-all`): y approves; anything else denies, then asks for a reason.
 */
export async function askApprovalsOnTerminal(
  requests: readonly ApprovalRequest[],
  stdin: NodeJS.ReadableStream,
  stderr: TextWriter & NodeJS.WritableStream,
): Promise<ApprovalAnswer[]> {
  const terminal = createInterface({ input: stdin, output: stderr, terminal: false });
  try {
    const answers: ApprovalAnswer[] = [];
    for (const request of requests) {
      const reply = (await terminal.question(`${formatApprovalQuestion(request)} [y/n] `)).trim().toLowerCase();
      if (reply === 'y' || reply === 'yes') {
        answers.push({ approvalId: request.approvalId, approved: true });
        continue;
      }
      const reason = (await terminal.question('Reason for denying (optional): ')).trim();
      answers.push({ approvalId: request.approvalId, approved: false, ...(reason ? { reason } : {}) });
    }
    return answers;
  } finally {
    terminal.close();
  }
}
