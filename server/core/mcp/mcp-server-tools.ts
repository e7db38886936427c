import type { Agents } from '../agents/agents.js';
import { NotFoundError, UpstreamError } from '../errors.js';
import { isToolOffered, mcpToolName, toolNeedsApproval, validateMcpConfig } from './mcp-config-schema.js';
import type { McpConnections } from './mcp-connections.js';
import { McpToolError } from './mcp-tool-error.js';

/** One tool of a server as `harness mcp test` shows it. */
export interface McpServerToolView {
  name: string;
  /** What the model sees it as, `<server>__<tool>`. */
  modelName: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  /** Whether the agent's `tools.allow`/`tools.deny` let the model see it. */
  offered: boolean;
  needsApproval: boolean;
}

/**
 * Lists the tools of one of an agent's MCP servers now (through the same pooled connection and
 * outbound policy as a turn): 404 for an unknown agent or server, 502 when the server cannot
 * be reached or refuses.
 */
export async function listMcpServerTools(agents: Agents, connections: McpConnections, accountId: string, agentId: string, serverName: string): Promise<{ server: string; url: string; tools: McpServerToolView[] }> {
  const agent = await agents.load(accountId, agentId);
  const servers = agent.config.mcp === undefined ? {} : validateMcpConfig(agent.config.mcp);
  const server = Object.hasOwn(servers, serverName) ? servers[serverName] : undefined;
  if (!server) throw new NotFoundError(`The agent "${agentId}" has no MCP server "${serverName}" (config.mcp${Object.keys(servers).length ? `: ${Object.keys(servers).join(', ')}` : ' is empty'}).`);
  try {
    const listed = await connections.listTools({ accountId, agentId, server: serverName }, server);
    return {
      server: serverName,
      url: server.url,
      tools: listed.map((tool) => ({
        name: tool.name,
        modelName: mcpToolName(serverName, tool.name),
        ...(tool.description ? { description: tool.description } : {}),
        inputSchema: tool.inputSchema,
        offered: isToolOffered(server, tool.name),
        needsApproval: toolNeedsApproval(server, tool.name),
      })),
    };
  } catch (error) {
    if (error instanceof McpToolError) throw new UpstreamError(error.message);
    throw error;
  }
}
