import { jsonSchema, type Tool, type ToolSet, tool } from 'ai';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolSource } from '../tools/build-tools.js';
import type { ToolContext } from '../tools/tool-context.js';
import { isToolOffered, mcpToolName, type McpServerConfig, modelToolNamePattern, toolNeedsApproval, validateMcpConfig } from './mcp-config-schema.js';
import type { McpConnections, McpServerKey, McpToolDescription } from './mcp-connections.js';
import { McpToolError } from './mcp-tool-error.js';

/**
 * What the model gets from a successful call: the text parts joined, the result's `content`
 * parts as the server sent them (the MCP result shape, images and resources included), and the
 * structured content when the tool gave one. The tool-output cap bounds the whole.
 */
export interface McpToolOutput {
  text: string;
  content: CallToolResult['content'];
  structuredContent?: Record<string, unknown>;
}

/** Tool lists remembered for servers that later cannot be listed, all agents together. */
const maxRemembered = 1000;

const openObjectSchema = { type: 'object', properties: {}, additionalProperties: true };

/** Characters of a tool's own failure text kept in the error the model gets. */
const maxReportedFailureLength = 2000;

function outputOf(result: CallToolResult): McpToolOutput {
  const text = result.content
    .map((part) => (part.type === 'text' ? part.text : `[${part.type} content omitted]`))
    .join('\n');
  return { text, content: result.content, ...(result.structuredContent ? { structuredContent: result.structuredContent } : {}) };
}

/** A server's JSON schema as the model's input schema; MCP requires an object schema, which is kept as given. */
function inputSchemaOf(description: McpToolDescription): Record<string, unknown> {
  const schema = description.inputSchema;
  return schema.type === 'object' ? schema : openObjectSchema;
}

function mcpTool(connections: McpConnections, key: McpServerKey, server: McpServerConfig, description: McpToolDescription, unavailable?: string): Tool {
  const modelName = mcpToolName(key.server, description.name);
  return tool({
    description: description.description ?? `The tool ${description.name} of the MCP server "${key.server}".`,
    inputSchema: jsonSchema<Record<string, unknown>>(inputSchemaOf(description) as Parameters<typeof jsonSchema>[0]),
    ...(toolNeedsApproval(server, description.name) ? { needsApproval: true } : {}),
    execute: async (input, options): Promise<McpToolOutput> => {
      if (unavailable) throw new McpToolError(unavailable, 'unavailable');
      const result = await connections.callTool(key, server, description.name, input ?? {}, options.abortSignal);
      if (result.isError) {
        const reported = outputOf(result).text.slice(0, maxReportedFailureLength);
        throw new McpToolError(`${modelName} failed on the MCP server "${key.server}"${reported ? `: ${reported}` : '.'}`, 'tool');
      }
      return outputOf(result);
    },
  }) as Tool;
}

/**
 * The tool source for `config.mcp`: each server's tools, as `<server>__<tool>` with the
 * server's JSON schema, filtered by `tools.allow`/`tools.deny`, gated by `needsApproval`.
 * A server that cannot be listed when the turn starts does not fail the turn: its last known
 * tools (or, failing that, the tools its `allow` list names) are offered and answer every call
 * with a tool error saying the server is unavailable; with neither, it offers nothing and a
 * warning is logged. Either way a call of any other `<server>__<tool>` answers a tool error
 * naming the server and saying it could not be reached (through the turn's `unavailableTools`),
 * not the AI SDK's "unavailable tool". A tool whose model-facing name is invalid or already
 * taken is skipped with a warning. A config written before `maxServersPerAgent` was lowered
 * uses its first `maxServersPerAgent` servers (a warning names the rest).
 *
 * The servers' input schemas go to the model as they are and compile nothing here: the AI SDK's
 * `jsonSchema()` without `validate` only carries the schema, and the server checks the input.
 */
export function mcpToolSource(connections: McpConnections, maxServersPerAgent: number): ToolSource {
  const lastKnown = new Map<string, McpToolDescription[]>();
  return {
    name: 'config.mcp',
    skipClashes: true,
    build: async (config, context: ToolContext) => {
      if (config.mcp === undefined) return {};
      const entries = Object.entries(validateMcpConfig(config.mcp));
      if (entries.length > maxServersPerAgent) {
        const skipped = entries.splice(maxServersPerAgent).map(([name]) => name);
        context.logger.warn({ event: 'mcp-tools', agentId: context.agentId, skipped }, `config.mcp names more than ${maxServersPerAgent} MCP servers (HARNESS_MCP_MAX_SERVERS_PER_AGENT); ${skipped.join(', ')} not used`);
      }
      const built = await Promise.all(
        entries.map(async ([serverName, server]) => {
          const key: McpServerKey = { accountId: context.accountId, agentId: context.agentId, server: serverName };
          const memory = JSON.stringify([key.accountId, key.agentId, key.server, server.url]);
          try {
            const listed = await connections.listTools(key, server);
            lastKnown.delete(memory);
            lastKnown.set(memory, listed);
            // Bounded: the oldest entry goes first (a Map iterates in insertion order).
            if (lastKnown.size > maxRemembered) lastKnown.delete(lastKnown.keys().next().value as string);
            return { key, server, listed, unavailable: undefined };
          } catch (error) {
            const message = (error as Error).message;
            context.logger.warn({ event: 'mcp-tools', server: serverName, agentId: context.agentId, error: message }, `MCP server ${serverName} could not be listed`);
            const fallback = lastKnown.get(memory) ?? (server.tools?.allow ?? []).map((name) => ({ name, inputSchema: openObjectSchema }));
            context.unavailableTools?.addPrefix(mcpToolName(serverName, ''), (toolName) => `${toolName} is a tool of the MCP server "${serverName}", which could not be reached when this turn started: ${message}`);
            return { key, server, listed: fallback, unavailable: message };
          }
        }),
      );
      const tools: ToolSet = {};
      for (const { key, server, listed, unavailable } of built) {
        for (const description of listed) {
          if (!isToolOffered(server, description.name)) continue;
          const modelName = mcpToolName(key.server, description.name);
          if (!modelToolNamePattern.test(modelName) || Object.hasOwn(tools, modelName)) {
            context.logger.warn({ event: 'mcp-tools', server: key.server, tool: description.name, agentId: context.agentId }, `MCP tool ${modelName} skipped: its name is not a valid model-facing tool name or is already taken`);
            continue;
          }
          tools[modelName] = mcpTool(connections, key, server, description, unavailable);
        }
      }
      return tools;
    },
  };
}
