import { type ToolSet, tool } from 'ai';
import { z } from 'zod';
import { validateAgentConfigSections } from '../agent-config/agent-config-sections.js';
import { HarnessError } from '../errors.js';
import type { ToolSource } from '../tools/build-tools.js';
import type { ToolContext } from '../tools/tool-context.js';
import { runTurnToEnd } from '../runs/run-turn-to-end.js';
import type { StartedTurn, TurnRequest, TurnResult } from '../turns/turn-types.js';
import type { SubagentConfig } from './subagent-config-schema.js';
import { subagentConversationKey, subagentDepth } from './subagent-conversation-key.js';

/** What run_subagent needs from the turn runner: starting a turn. */
export interface SubagentTurns {
  start(request: TurnRequest): Promise<StartedTurn>;
}

/** The reason a subagent's model and the caller see for a tool that needed an approval. */
export const subagentDenialReason = (toolName: string): string =>
  `${toolName} needs an approval, and approvals cannot be given inside a subagent.`;

/** What the calling model gets back. */
export interface SubagentOutput {
  agentId: string;
  conversationKey: string;
  depth: number;
  status: TurnResult['status'];
  /** The subagent's final text in this run. */
  text: string;
  /** Tools the subagent wanted to run that needed an approval: denied. */
  deniedApprovals: { toolName: string; reason: string }[];
  /** External work the subagent still waits for (its continuation lands in its own conversation). */
  pendingAsyncTools?: { toolName: string; resultId: string }[];
  error?: string;
}

async function runSubagent(turns: SubagentTurns, context: ToolContext, agentId: string, message: string, depth: number, signal?: AbortSignal): Promise<SubagentOutput> {
  const conversationKey = subagentConversationKey(context.conversationKey, agentId);
  // Another conversation than the caller's, so its lock is free: no deadlock. A loop back to
  // the caller is another conversation again, and ends at the depth limit.
  const started = await turns.start({
    accountId: context.accountId,
    agentId,
    conversationKey,
    // The caller's end user is the subagent's too (its memory scope `user`).
    ...(context.user !== undefined ? { user: context.user } : {}),
    input: { kind: 'user', message: { role: 'user', content: message } },
    // JSON semantics: no stream reaches a person, and external-dispatch tools are allowed.
    transport: 'json',
    approvalPolicy: 'deny',
    denialReason: subagentDenialReason,
    // A cancel of the caller's turn cancels the subagent's turn too.
    ...(signal ? { signal } : {}),
  });
  const result = await runTurnToEnd(started);
  return {
    agentId,
    conversationKey,
    depth,
    status: result.status,
    text: result.text,
    deniedApprovals: result.deniedApprovals,
    ...(result.pendingAsyncTools.length > 0 ? { pendingAsyncTools: result.pendingAsyncTools.map(({ toolName, resultId }) => ({ toolName, resultId })) } : {}),
    ...(result.error ? { error: result.error.message } : {}),
  };
}

/**
 * `run_subagent`: runs another agent of the same account, one listed in
 * `config.subagent.agents`, as a nested turn in its own conversation, and returns its text.
 */
export function buildRunSubagentTool(config: SubagentConfig, context: ToolContext, turns: SubagentTurns): ToolSet {
  const { agents, maxDepth } = config;
  const agentIds = Object.keys(agents);
  if (agentIds.length === 0) return {};
  const listing = agentIds.map((agentId) => `- ${agentId}: ${agents[agentId]?.description ?? ''}`).join('\n');
  return {
    run_subagent: tool({
      description: `Run another agent as a subagent: it gets your message as its user message, works on it with its own tools, and its final text comes back. Calling the same agent again continues its conversation. Tools it would need approval for are denied. Available agents:\n${listing}`,
      inputSchema: z.object({
        agentId: z.string().min(1).describe(`The agent to run, one of: ${agentIds.join(', ')}`),
        message: z.string().min(1).describe('The task for the subagent, with everything it needs to know'),
      }),
      execute: async ({ agentId, message }, { abortSignal }): Promise<SubagentOutput | { error: string }> => {
        if (!Object.hasOwn(agents, agentId)) {
          return { error: `"${agentId}" is not one of this agent's subagents (available: ${agentIds.join(', ')}).` };
        }
        const depth = subagentDepth(context.conversationKey) + 1;
        if (depth > maxDepth) {
          return { error: `The subagent depth limit is reached: this conversation is already ${depth - 1} level(s) deep and maxDepth is ${maxDepth}, so ${agentId} cannot be run from here.` };
        }
        try {
          return await runSubagent(turns, context, agentId, message, depth, abortSignal);
        } catch (error) {
          // Domain errors (unknown agent, no provider...) have user-facing messages; others may not.
          if (error instanceof HarnessError) return { error: `${agentId} could not run: ${error.message}` };
          context.logger.error({ event: 'run-subagent', agentId, error: (error as Error).message }, 'subagent turn failed');
          return { error: `${agentId} could not run because of an internal error; it has been logged.` };
        }
      },
    }),
  };
}

/** The tool source for `config.subagent`, given the runner that starts the subagents' turns. */
export function subagentToolSource(turns: SubagentTurns): ToolSource {
  return {
    name: 'config.subagent',
    build: (config, context) => {
      // Validated again when tools are built (shape, and no external tool config here), as config.tools is.
      const { subagent } = validateAgentConfigSections({ subagent: config.subagent });
      return subagent ? buildRunSubagentTool(subagent, context, turns) : {};
    },
  };
}
