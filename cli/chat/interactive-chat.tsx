import { render } from 'ink';
import type { CliContext } from '../cli-context.js';
import type { CommandHint } from '../command-hint.js';
import { ChatApp } from './chat-app.js';
import type { ChatSession } from './chat-session.js';

/**
 * Runs the Ink chat on the terminal until the user leaves (`/exit`, or Ctrl-C with no turn
 * running: Ctrl-C during a turn cancels it, which `ChatApp` reads as a key), then prints
 * the conversation key so the user can come back to it.
 */
export async function runInteractiveChat(context: CliContext, options: { session: ChatSession; agentId: string; historyLength: number; hint: CommandHint }): Promise<void> {
  const app = render(<ChatApp session={options.session} agentId={options.agentId} historyLength={options.historyLength} />, {
    // Only reached when both are terminals, which only the process streams are.
    stdout: context.stdout as NodeJS.WriteStream,
    stdin: context.stdin as NodeJS.ReadStream,
    exitOnCtrlC: false,
  });
  // Approvals left pending in the history are answered at once under --approve-all/--deny-all.
  options.session.answerPendingApprovals().catch(() => {});
  await app.waitUntilExit();
  // A reply still streaming would keep the process alive; the user has left.
  options.session.close();
  // Ink leaves the cursor at the end of its last frame.
  context.stdout.write(`\nconversation: ${options.session.conversationKey} (continue with: ${options.hint('chat', options.agentId, '--conversation', options.session.conversationKey)})\n`);
}
