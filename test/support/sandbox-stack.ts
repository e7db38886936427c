import { accountBucketFolder } from '../../server/core/sandbox/account-bucket.js';
import { type BubblewrapStatus, probeBubblewrap } from '../../server/core/sandbox/bubblewrap-probe.js';
import { startChatStack, type ChatStack, type ChatStackOptions } from './chat-stack.js';

/** The JSON answer of the chat API. */
export interface ChatAnswer {
  conversationKey: string;
  status: string;
  text: string;
  messages: { role: string; content: unknown }[];
  pendingApprovals: { approvalId: string; toolName: string; input: unknown }[];
}

/** A tool result of a turn, with its JSON output. */
export interface ToolResultPart {
  toolName: string;
  output: unknown;
}

export interface SandboxStack extends Omit<ChatStack, 'putAgent' | 'provider' | 'chat'> {
  bubblewrap: BubblewrapStatus;
  /** PUT an agent; resolves with the status and body, whatever they are. */
  putAgent(secret: string, agentId: string, config: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }>;
  /** The provider block pointing at the fixture model. */
  provider(): Record<string, unknown>;
  /** One JSON chat turn; throws unless the service answered 200. */
  chat(secret: string, agentId: string, conversationKey: string, message: string): Promise<ChatAnswer>;
  /** One SSE chat turn: the raw response. */
  chatStream(secret: string, agentId: string, body: unknown): Promise<Response>;
  /** The host folder of an account in the bucket (workspace paths are relative to it). */
  accountFolder(accountId: string): string;
  /** Names of the tools the model was offered in its most recent call. */
  lastOfferedTools(): string[];
  /** Description of a tool offered in the most recent model call. */
  lastToolDescription(name: string): string | undefined;
}

interface OfferedTool {
  name?: string;
  description?: string;
  function?: { name?: string; description?: string };
}

/** Tool results of a turn's messages, in order. */
export function toolResults(messages: ChatAnswer['messages']): ToolResultPart[] {
  return messages.flatMap((message) =>
    message.role === 'tool' && Array.isArray(message.content)
      ? (message.content as { type: string; toolName: string; output?: { type: string; value: unknown } }[])
          .filter((part) => part.type === 'tool-result')
          .map((part) => ({ toolName: part.toolName, output: part.output?.value }))
      : [],
  );
}

/**
 * The chat stack (both services on loopback over real lowdb files, the fixture model, a
 * bucket folder named by the infrastructure definition, as `serve` makes it) with bubblewrap
 * as probed on this machine, unless the options say otherwise.
 */
export async function startSandboxStack(options: Pick<ChatStackOptions, 'bubblewrap' | 'sandboxSettings' | 'sandboxCgroups' | 'mcp'> = {}): Promise<SandboxStack> {
  const bubblewrap = options.bubblewrap ?? (await probeBubblewrap());
  const chat = await startChatStack({ ...options, bubblewrap });
  const lastBodyTools = (): OfferedTool[] => {
    const body = chat.model.calls().at(-1)?.body as { tools?: OfferedTool[] } | undefined;
    return body?.tools ?? [];
  };
  return Object.assign(Object.create(chat) as ChatStack, {
    bubblewrap,
    putAgent: async (secret: string, agentId: string, config: Record<string, unknown>) => {
      const response = await fetch(`${chat.accountUrl}/accounts/me/agents/${agentId}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: JSON.stringify({ config }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    provider: () => chat.provider('chat'),
    chat: async (secret: string, agentId: string, conversationKey: string, message: string) => {
      const response = await chat.chat(secret, agentId, { conversationKey, message });
      if (response.status !== 200) throw new Error(`chat: ${response.status} ${await response.text()}`);
      return (await response.json()) as ChatAnswer;
    },
    chatStream: (secret: string, agentId: string, body: unknown) => chat.chat(secret, agentId, body, 'text/event-stream'),
    accountFolder: (accountId: string) => accountBucketFolder(chat.bucketFolder, accountId),
    lastOfferedTools: () => lastBodyTools().map((entry) => entry.function?.name ?? entry.name ?? '').sort(),
    lastToolDescription: (name: string) => {
      const found = lastBodyTools().find((entry) => (entry.function?.name ?? entry.name) === name);
      return found?.function?.description ?? found?.description;
    },
  }) as SandboxStack;
}
