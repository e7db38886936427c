import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AgentView } from '../agents/agent.js';
import { conversationKeyMaxLength } from '../conversations/conversation-key.js';
import { HarnessError } from '../errors.js';
import type { RateBudget } from '../limits/rate-budget.js';
import { takeBudget } from '../limits/take-budget.js';
import { packageVersion } from '../package-version.js';
import { runTurnToEnd } from '../runs/run-turn-to-end.js';
import type { AccountReading, TurnRequest, TurnResult, StartedTurn } from '../turns/turn-types.js';

/** What `ask_<agentId>` needs of the core: the account's agents, a turn, and the per-account turn budget. */
export interface AgentMcpServerOptions {
  account: AccountReading;
  agents: AgentView[];
  startTurn: (request: TurnRequest) => Promise<StartedTurn>;
  turnBudget: RateBudget;
  /** The agent service's own origin (`http://host:port`), for the approval and status links. */
  origin: string;
}

/** The tool an MCP client calls for `agentId`. */
export function askToolName(agentId: string): string {
  return `ask_${agentId}`;
}

const askInput = {
  message: z.string().min(1).describe('The user message for the agent.'),
  conversationKey: z
    .string()
    .min(1)
    .max(conversationKeyMaxLength)
    .optional()
    .describe('Continue this conversation; without one, a new conversation is started and its key returned.'),
};

/** `structuredContent` of an `ask_<agentId>` result, declared as the tool's `outputSchema`. */
const askOutput = {
  text: z.string().describe("The turn's text."),
  status: z.string().describe('completed, awaiting_approval, waiting_async_tools or failed.'),
  conversationKey: z.string().describe('Pass it back to continue the conversation.'),
  eventId: z.string().optional().describe('When the turn waits for async tools: its status row.'),
  pendingApprovals: z
    .array(z.object({ approvalId: z.string(), toolName: z.string(), input: z.unknown() }))
    .optional()
    .describe('When the turn waits for approvals: what waits.'),
  howToAnswerApprovals: z
    .object({ method: z.literal('POST'), url: z.string(), headers: z.record(z.string(), z.string()), body: z.unknown(), note: z.string() })
    .optional()
    .describe('When the turn waits for approvals: the chat request that answers them.'),
  statusUrl: z.string().optional().describe('When the turn waits for async tools: where to follow it.'),
};

/**
 * The answer to `ask_<agentId>`: the turn's text as the first text part (with a line on what the
 * turn waits for, if anything), `structuredContent` `{text, status, conversationKey, eventId?,
 * pendingApprovals?, howToAnswerApprovals?, statusUrl?}`, and, as the MCP specification asks of a
 * tool with structured output, the same object as JSON in a second text part for clients that
 * read only text.
 */
function answerOf(agentId: string, result: TurnResult, origin: string): CallToolResult {
  const pendingApprovals = result.pendingApprovals.map(({ approvalId, toolName, input }) => ({ approvalId, toolName, input }));
  const structured: Record<string, unknown> = { text: result.text, status: result.status, conversationKey: result.conversationKey };
  const lines = [result.text || `(no text; the turn ended ${result.status})`];
  if (pendingApprovals.length > 0) {
    structured.pendingApprovals = pendingApprovals;
    structured.howToAnswerApprovals = {
      method: 'POST',
      url: `${origin}/agents/${agentId}/chat`,
      headers: { authorization: 'Bearer <the account secret>', 'content-type': 'application/json' },
      body: {
        conversationKey: result.conversationKey,
        message: { role: 'tool', content: pendingApprovals.map((approval) => ({ type: 'tool-approval-response', approvalId: approval.approvalId, approved: true })) },
      },
      note: 'Set approved to false (with an optional reason) to deny; the answer runs the rest of the turn and returns it.',
    };
    lines.push(
      `The turn is waiting for approval of ${pendingApprovals.map((approval) => `${approval.toolName} (approvalId ${approval.approvalId})`).join(', ')}.`,
      `Answer with POST ${origin}/agents/${agentId}/chat and the body in structuredContent.howToAnswerApprovals.`,
    );
  }
  if (result.status === 'waiting_async_tools') {
    structured.eventId = result.eventId;
    structured.statusUrl = `${origin}/status/${result.eventId}`;
    lines.push(`The turn waits for async tools; follow it at ${origin}/status/${result.eventId}.`);
  }
  if (result.status === 'failed' && result.error) lines.push(`The turn failed: ${result.error.message}`);
  return {
    content: [
      { type: 'text', text: lines.join('\n') },
      { type: 'text', text: JSON.stringify(structured) },
    ],
    structuredContent: structured,
    ...(result.status === 'failed' ? { isError: true } : {}),
  };
}

function refusal(error: unknown): CallToolResult {
  if (error instanceof HarnessError && error.status < 500) return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}` }] };
  throw error;
}

/**
 * The MCP server an account's secret opens: one tool per agent, `ask_<agentId>`, which runs a
 * turn through the one path (`TurnRunner.start`, the same admission as the chat route: the
 * turn budget, limits, daily tokens, a disabled account) to its end, and answers with the
 * turn's text and status. A turn that stops for approvals answers with them and the chat
 * request that answers them. A refused turn (429, 409, 413...) is a tool error naming why.
 */
export function createAgentMcpServer(options: AgentMcpServerOptions): McpServer {
  const server = new McpServer({ name: 'harness', version: packageVersion }, { capabilities: { tools: {} } });
  // The SDK installs the tools/list and tools/call handlers with the first tool; an account
  // without agents still answers tools/list (with an empty list).
  server.registerTool('harness_no_agents', { description: 'placeholder' }, () => ({ content: [] })).remove();
  for (const agent of options.agents) {
    const description = typeof agent.config.system === 'string' && agent.config.system.length > 0 ? ` Its instructions begin: ${agent.config.system.slice(0, 200)}` : '';
    server.registerTool(
      askToolName(agent.agentId),
      { description: `Send a message to the harness agent "${agent.agentId}" and get its answer.${description}`, inputSchema: askInput, outputSchema: askOutput },
      async ({ message, conversationKey }) => {
        try {
          await takeBudget(options.turnBudget, options.account.accountId, 'turns');
          const turn = await options.startTurn({
            accountId: options.account.accountId,
            agentId: agent.agentId,
            conversationKey: conversationKey ?? `mcp-${randomUUID()}`,
            input: { kind: 'user', message: { role: 'user', content: message } },
            transport: 'json',
            approvalPolicy: 'ask',
            accountReadByRequest: options.account,
          });
          return answerOf(agent.agentId, await runTurnToEnd(turn), options.origin);
        } catch (error) {
          return refusal(error);
        }
      },
    );
  }
  return server;
}
