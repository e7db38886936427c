import { randomBytes } from 'node:crypto';
import { Command, Option } from 'commander';
import type { CliContext } from '../cli-context.js';
import { UsageError } from '../cli-error.js';
import { conversationKeyProblem } from '../../server/core/conversations/conversation-key.js';
import { createHttpChatSource, type ChatStreamSource } from '../chat/chat-stream-source.js';
import { createNatsChatSource } from '../chat/nats-stream-source.js';
import { createApiClient } from '../api-client.js';
import { ChatSession, type ApprovalPolicy } from '../chat/chat-session.js';
import { loadConversation, transcriptFromHistory } from '../chat/conversation-history.js';
import { runOneShotChat } from '../chat/one-shot-chat.js';
import { askApprovalsOnTerminal } from '../chat/terminal-approvals.js';
import { commandHint } from '../command-hint.js';
import { cancelPath } from './cancel.js';
import { isTerminal } from '../is-terminal.js';
import { commandOptions, openAgentSession, serveCommand, withJsonOption, type CommonOptions } from '../session.js';

export interface ChatOptions extends CommonOptions {
  conversation?: string;
  message?: string;
  approveAll?: boolean;
  denyAll?: boolean;
  /** `http` (SSE, the default) or `nats` (WebSocket, with resume by replay). */
  transport?: 'http' | 'nats';
}

/** A fresh conversation key: `cli-<milliseconds>-<6 hex digits>`. */
export function newConversationKey(now = Date.now()): string {
  return `cli-${now}-${randomBytes(3).toString('hex')}`;
}

function checkConversationKey(key: string): string {
  const problem = conversationKeyProblem(key);
  if (problem !== undefined) throw new UsageError(`invalid conversation key ${JSON.stringify(key)}: it ${problem}`);
  return key;
}

export async function chat(context: CliContext, agentId: string, options: ChatOptions): Promise<void> {
  const conversationKey = checkConversationKey(options.conversation ?? newConversationKey());
  const interactive = options.message === undefined;
  if (options.message !== undefined && options.message.trim() === '') throw new UsageError('-m needs a non-empty message');
  if (interactive && options.json) throw new UsageError('--json needs -m TEXT (the interactive chat has no JSON output)');
  if (interactive && !(isTerminal(context.stdout) && isTerminal(context.stdin))) {
    throw new UsageError('the interactive chat needs a terminal; pass -m TEXT to send one message (with --approve-all or --deny-all for approvals)');
  }

  const { profile, agentService } = await openAgentSession(context, options.profile);
  if (options.transport !== undefined && options.transport !== 'http' && options.transport !== 'nats') throw new UsageError(`--transport must be http or nats (got "${String(options.transport)}")`);
  if (options.transport === 'nats') {
    const accountService = createApiClient({ baseUrl: profile.accountUrl, serviceName: 'account', secret: profile.secret, serveCommand: serveCommand(context) });
    const natsToken = context.env.NATS_TOKEN;
    const source = createNatsChatSource({ accountService, agentId, secret: profile.secret, ...(natsToken ? { natsToken } : {}) });
    try {
      return await runChat(context, agentId, options, conversationKey, source, agentService);
    } finally {
      await source.close();
    }
  }
  return runChat(context, agentId, options, conversationKey, createHttpChatSource({ agentUrl: profile.agentUrl, agentId, secret: profile.secret, serveCommand: serveCommand(context) }), agentService);
}

async function runChat(
  context: CliContext,
  agentId: string,
  options: ChatOptions,
  conversationKey: string,
  source: ChatStreamSource,
  agentService: Awaited<ReturnType<typeof openAgentSession>>['agentService'],
): Promise<void> {
  const approvalPolicy: ApprovalPolicy | undefined = options.approveAll ? 'approve-all' : options.denyAll ? 'deny-all' : undefined;
  const hint = commandHint(context.env, options.profile);
  // The stored conversation: what it still waits for is answered before anything new is sent.
  const history = options.conversation === undefined ? undefined : transcriptFromHistory(await loadConversation(agentService, agentId, conversationKey));
  if (options.message !== undefined) {
    return runOneShotChat(context, {
      hint,
      history,
      source,
      agentId,
      conversationKey,
      newConversation: options.conversation === undefined,
      message: options.message,
      approvalPolicy,
      json: options.json,
      askApprovals: isTerminal(context.stdin) && isTerminal(context.stderr) ? (requests) => askApprovalsOnTerminal(requests, context.stdin, context.stderr as NodeJS.WriteStream) : undefined,
    });
  }

  const transcript = history ?? transcriptFromHistory(undefined);
  // Esc or Ctrl-C during a turn: the cancel route of this conversation, whatever the transport.
  const cancelRun = () => agentService.send('POST', cancelPath({ agentId, conversationKey }));
  const session = new ChatSession({ source, conversationKey, transcript, approvalPolicy, cancelRun });
  // Loaded only here: the one-shot mode and the tests never pull Ink and React in.
  const { runInteractiveChat } = await import('../chat/interactive-chat.js');
  await runInteractiveChat(context, { session, agentId, historyLength: transcript.entries.length, hint });
}

export function chatCommand(context: CliContext): Command {
  return withJsonOption(
    new Command('chat')
      .description('chat with an agent: interactive at a terminal, or one message with -m')
      .argument('<agentId>')
      .option('--conversation <key>', 'conversation to continue (default: a new cli-<time>-<random> key, printed)')
      .option('-m, --message <text>', 'send one message, print the reply and exit (no terminal UI)')
      .addOption(new Option('--approve-all', 'approve every tool call that asks for approval').conflicts('denyAll'))
      .addOption(new Option('--deny-all', 'deny every tool call that asks for approval'))
      .addOption(new Option('--transport <transport>', 'http (SSE) or nats (WebSocket; a dropped stream resumes by replay)').choices(['http', 'nats']).default('http')),
  ).action(async (agentId: string, _options: unknown, command: Command) => chat(context, agentId, commandOptions<ChatOptions>(command)));
}
