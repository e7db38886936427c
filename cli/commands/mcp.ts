import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { formatTable, printJson, printText } from '../output.js';
import { commandOptions, openAgentSession, withJsonOption, type CommonOptions } from '../session.js';

/** One tool of `GET /agents/{agentId}/mcp/{server}/tools`. */
export interface McpToolRow {
  name: string;
  modelName: string;
  description?: string;
  offered: boolean;
  needsApproval: boolean;
}

export interface McpServerTools {
  server: string;
  url: string;
  tools: McpToolRow[];
}

/** A table of the server's tools: the model-facing name, whether the model gets it, approval, the description. */
export function formatMcpTools(listing: McpServerTools): string {
  if (listing.tools.length === 0) return `The MCP server ${listing.server} (${listing.url}) lists no tools.\n`;
  const rows = listing.tools.map((tool) => [tool.modelName, tool.offered ? 'yes' : 'no (allow/deny)', tool.needsApproval ? 'yes' : 'no', (tool.description ?? '').split('\n')[0] ?? '']);
  return `The MCP server ${listing.server} (${listing.url}) lists ${listing.tools.length} tool${listing.tools.length === 1 ? '' : 's'}:\n${formatTable(['TOOL', 'OFFERED', 'APPROVAL', 'DESCRIPTION'], rows)}`;
}

/** Connects to one of an agent's MCP servers through the agent service (its headers, the outbound policy) and lists its tools. */
export async function runMcpTest(context: CliContext, agentId: string, server: string, options: CommonOptions): Promise<void> {
  const { agentService } = await openAgentSession(context, options.profile);
  const listing = await agentService.send<McpServerTools>('GET', `/agents/${encodeURIComponent(agentId)}/mcp/${encodeURIComponent(server)}/tools`);
  if (options.json) return printJson(context.stdout, listing);
  printText(context.stdout, formatMcpTools(listing));
}

export function mcpCommand(context: CliContext): Command {
  const test = withJsonOption(new Command('test').description("connect to an agent's MCP server (config.mcp.<server>) and list its tools").argument('<agent>', 'agent id').argument('<server>', 'server name under config.mcp')).action(
    async (agentId: string, server: string, _options: unknown, command: Command) => runMcpTest(context, agentId, server, commandOptions<CommonOptions>(command)),
  );
  return new Command('mcp').description("MCP servers of an agent's config").addCommand(test);
}
