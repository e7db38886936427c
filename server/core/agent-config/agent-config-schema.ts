import { z } from 'zod';
import { validateChannelsConfig } from '../channels/channel-config.js';
import { validateWebhooksConfig, type WebhooksConfig } from '../completion-webhooks/webhooks-config.js';
import { InvalidRequestError } from '../errors.js';
import { busyModes } from './busy-mode.js';
import { contextConfigSchema } from '../context/context-config.js';
import { type McpConfig, validateMcpConfig } from '../mcp/mcp-config-schema.js';
import { type MemoryConfig, validateMemoryConfig } from '../memory/memory-config-schema.js';
import { type ModelConfig, modelConfigSchema } from '../model/model-config.js';
import { checkModelProviders, type ProviderConfigs, validateProviderConfigs } from '../model/provider-config.js';
import { checkProviderTools } from '../model/provider-tools.js';
import { zodIssueError } from '../config-parsing/zod-issue.js';
import { type AgentConfigSections, validateAgentConfigSections } from './agent-config-sections.js';
import { isToolName, toolCatalog, toolNames, toolsConfiguredElsewhere } from '../config-parsing/tool-catalog.js';

const objectOf = (what: string) => z.record(z.string(), z.unknown(), { error: `must be an object (${what})` });

/** The agent config. Keys validated elsewhere are `unknown` here and checked by their own validators. */
const agentConfigSchema = z.strictObject({
  system: z.string({ error: 'must be a string (the system prompt)' }).max(100_000, 'must be at most 100000 characters').optional(),
  // Each provider's connection (server/core/model/providers), validated by its own validator.
  provider: z.unknown().optional(),
  model: modelConfigSchema.optional(),
  maxSteps: z.number({ error: 'must be an integer from 1 to 50' }).int('must be an integer from 1 to 50').min(1, 'must be an integer from 1 to 50').max(50, 'must be an integer from 1 to 50').optional(),
  tools: z.record(z.string(), z.unknown(), { error: 'must be an object keyed by tool name' }).optional(),
  // Validated by their own validators (server/core/sandbox), which name the offending path.
  sandbox: z.unknown().optional(),
  workspace: z.unknown().optional(),
  subagent: z.unknown().optional(),
  skills: z.unknown().optional(),
  channels: objectOf('channel provider to its settings').optional(),
  webhooks: z.unknown().optional(),
  // What a user message does when a turn already runs on its conversation (server/core/runs/busy-mode.ts).
  busy: z.enum(busyModes, { error: `must be one of ${busyModes.join(', ')}` }).optional(),
  // MCP servers (server/core/mcp), validated by their own validator.
  mcp: z.unknown().optional(),
  // Notes beyond the conversation (server/core/memory), validated by its own validator.
  memory: z.unknown().optional(),
  // How a history longer than the model's window is sent (server/core/context).
  context: contextConfigSchema.optional(),
});

/**
 * The stored config. `sandbox`, `workspace`, `subagent` and `skills` are stored as
 * `validateAgentConfigSections` returns them (defaults filled); the tool sources validate them
 * again, into their narrow types, when tools are built.
 */
export type AgentConfig = Omit<z.infer<typeof agentConfigSchema>, 'provider' | 'model' | 'tools' | 'webhooks' | 'mcp' | 'memory' | keyof AgentConfigSections> & {
  provider?: ProviderConfigs;
  model?: ModelConfig;
  tools?: Record<string, Record<string, unknown>>;
  webhooks?: WebhooksConfig;
  mcp?: McpConfig;
  memory?: MemoryConfig;
} & { [Key in keyof AgentConfigSections]?: Record<string, unknown> };

/**
 * Validate `config.tools`: known names only, never a tool that comes from its own key, each
 * with its catalog options. Also run when tools are built.
 */
export function validateToolsConfig(tools: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const validated: Record<string, Record<string, unknown>> = {};
  for (const [name, options] of Object.entries(tools)) {
    const elsewhere = Object.hasOwn(toolsConfiguredElsewhere, name) ? toolsConfiguredElsewhere[name] : undefined;
    if (elsewhere) {
      throw new InvalidRequestError(`config.tools.${name} is not allowed: ${name} comes only from ${elsewhere}, never from config.tools`);
    }
    if (!isToolName(name)) {
      throw new InvalidRequestError(`config.tools.${name} is not a known tool (known tools: ${toolNames.join(', ')})`);
    }
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      throw new InvalidRequestError(`config.tools.${name} must be an object of tool options`);
    }
    const parsed = toolCatalog[name].options.safeParse(options);
    if (!parsed.success) throw zodIssueError(`config.tools.${name}`, parsed.error);
    validated[name] = parsed.data as Record<string, unknown>;
  }
  return validated;
}

/** Validate a whole agent config; the error names the first offending path. */
export function validateAgentConfig(config: unknown): AgentConfig {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new InvalidRequestError('config must be an object');
  }
  const provider = (config as { provider?: unknown }).provider;
  const providers = provider === undefined ? undefined : validateProviderConfigs(provider);
  const parsed = agentConfigSchema.safeParse(config);
  if (!parsed.success) throw zodIssueError('config', parsed.error);
  const { provider: _provider, model, tools, channels, webhooks, mcp, memory, sandbox, workspace, subagent, skills, ...rest } = parsed.data;
  checkModelProviders(providers, model as ModelConfig | undefined);
  const validatedTools = tools ? validateToolsConfig(tools) : undefined;
  checkProviderTools(providers, model as ModelConfig | undefined, validatedTools);
  return {
    ...rest,
    ...(providers ? { provider: providers } : {}),
    ...(model ? { model: model as ModelConfig } : {}),
    ...validateAgentConfigSections({ sandbox, workspace, subagent, skills }),
    ...(validatedTools ? { tools: validatedTools } : {}),
    ...(channels ? { channels: validateChannelsConfig(channels) } : {}),
    ...(webhooks !== undefined ? { webhooks: validateWebhooksConfig(webhooks) } : {}),
    ...(mcp !== undefined ? { mcp: validateMcpConfig(mcp) } : {}),
    ...(memory !== undefined ? { memory: validateMemoryConfig(memory) } : {}),
  };
}
