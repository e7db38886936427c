import type { Tool, ToolSet } from 'ai';
import type { AgentConfig } from '../agent-config/agent-config-schema.js';
import { validateToolsConfig } from '../agent-config/agent-config-schema.js';
import { toolCatalog, type ToolName } from '../config-parsing/tool-catalog.js';
import { InvalidRequestError } from '../errors.js';
import type { ToolContext } from './tool-context.js';
import { withToolLogging } from './tool-logging.js';
import { withOutputLimit } from './tool-output-limit.js';
import { toolFactories } from './tool-registry.js';

/** Wraps a local `async: true` tool so its result arrives later; supplied by the async coordinator. */
export type AsyncToolWrapper = (name: string, tool: Tool, toolConfig: Record<string, unknown>) => Tool;

/**
 * Tools that come from their own config keys, never from `config.tools`:
 * sandbox and workspaces, subagents, skills. Each source reads only its key.
 */
export interface ToolSource {
  /** The config key it reads, e.g. `config.sandbox`: for error messages. */
  name: string;
  build(config: AgentConfig, context: ToolContext): ToolSet | Promise<ToolSet>;
  /** A tool whose name is already taken is skipped with a warning instead of failing the turn (tools an outside server lists, which the config cannot know). */
  skipClashes?: boolean;
}

export interface BuildToolsOptions {
  wrapAsync?: AsyncToolWrapper;
  sources?: ToolSource[];
  /** Bytes of one tool output handed to the model (larger outputs become an error with a preview). */
  maxToolOutputBytes?: number;
}

/** Whether a tool config enables its tool: present means enabled unless `enabled: false`. */
export function isEnabled(toolConfig: Record<string, unknown>): boolean {
  return toolConfig.enabled !== false;
}

/**
 * Build the tools of one model run by the nine registry rules (this file's tests name them by
 * number):
 * 1. names in `config.tools` are checked; unknown names are rejected;
 * 2-4. sandbox, subagent and skill tools come only from their own config keys (`sources`);
 * 5. external tools come only from the static factory map;
 * 6. `needsApproval` is applied before the tools reach the model call;
 * 7. local `async: true` tools are wrapped by the async coordinator (provider-defined ones
 *    cannot be, which is logged as a warning);
 * 8. every tool's start, finish, duration and failure is logged;
 * 9. external tool config lives only under `config.tools` (validated when the config is
 *    written, and again here).
 */
export async function buildTools(config: AgentConfig, context: ToolContext, options: BuildToolsOptions = {}): Promise<ToolSet> {
  const tools: ToolSet = {};
  const configured = validateToolsConfig(config.tools ?? {});
  const logContext = { accountId: context.accountId, agentId: context.agentId, turnId: context.turnId };
  for (const [name, toolConfig] of Object.entries(configured) as [ToolName, Record<string, unknown>][]) {
    if (!isEnabled(toolConfig)) continue;
    const built = toolFactories[name](toolConfig, context);
    for (const [toolName, original] of Object.entries(built)) {
      let current: Tool = original;
      if (toolConfig.async === true) {
        if (toolCatalog[name].kind === 'provider-defined' || !current.execute) {
          context.logger.warn({ event: 'tool-config', tool: toolName, agentId: context.agentId }, `${toolName} is provider-defined and has no local execute: async: true is ignored`);
        } else if (options.wrapAsync) {
          current = options.wrapAsync(toolName, current, toolConfig);
        }
      }
      if (toolConfig.needsApproval === true) current = { ...current, needsApproval: true } as Tool;
      if (options.maxToolOutputBytes) current = withOutputLimit(toolName, current, options.maxToolOutputBytes);
      tools[toolName] = withToolLogging(toolName, current, context.logger, logContext);
    }
  }
  for (const source of options.sources ?? []) {
    const built = await source.build(config, context);
    for (const [toolName, sourceTool] of Object.entries(built)) {
      if (Object.hasOwn(tools, toolName) && source.skipClashes) {
        context.logger.warn({ event: 'tool-config', tool: toolName, agentId: context.agentId }, `${source.name} defines the tool ${toolName}, which another tool already uses: skipped`);
        continue;
      }
      if (Object.hasOwn(tools, toolName)) throw new InvalidRequestError(`${source.name} defines the tool ${toolName}, which another tool already uses`);
      const limited = options.maxToolOutputBytes ? withOutputLimit(toolName, sourceTool, options.maxToolOutputBytes) : sourceTool;
      tools[toolName] = withToolLogging(toolName, limited, context.logger, logContext);
    }
  }
  return tools;
}
