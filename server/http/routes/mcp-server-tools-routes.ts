import type { FastifyInstance } from 'fastify';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import { listMcpServerTools } from '../../core/mcp/mcp-server-tools.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { errorResponses } from '../openapi/error-responses.js';

const toolView = {
  type: 'object',
  required: ['name', 'modelName', 'inputSchema', 'offered', 'needsApproval'],
  properties: {
    name: { type: 'string', description: 'The name on the server.' },
    modelName: { type: 'string', description: 'The name the model sees, `<server>__<tool>`.' },
    description: { type: 'string' },
    inputSchema: { type: 'object', additionalProperties: true, description: "The server's JSON schema of the input." },
    offered: { type: 'boolean', description: 'Whether `tools.allow`/`tools.deny` let the model see it.' },
    needsApproval: { type: 'boolean' },
  },
};

/** What the MCP server tools route uses of the core. */
export type McpServerToolsRouteParts = Pick<HarnessCore, 'accounts' | 'agents' | 'mcpConnections'>;

/** `GET /agents/{agentId}/mcp/{server}/tools`: what `harness mcp test` shows. */
export function registerMcpServerToolsRoutes(app: FastifyInstance, core: McpServerToolsRouteParts): void {
  requireAccount(app, core, (scope) => {
    scope.get<{ Params: { agentId: string; server: string } }>(
      '/agents/:agentId/mcp/:server/tools',
      {
        schema: {
          summary: "List an agent's MCP server's tools",
          description: 'Connects to the server of `config.mcp.<server>` now (under the outbound policy, with its headers) and lists its tools. 502 when the server cannot be reached or refuses.',
          tags: ['mcp'],
          params: { type: 'object', required: ['agentId', 'server'], properties: { agentId: { type: 'string' }, server: { type: 'string' } } },
          response: {
            200: { description: "The server's tools, as listed now.", type: 'object', required: ['server', 'url', 'tools'], properties: { server: { type: 'string' }, url: { type: 'string' }, tools: { type: 'array', items: toolView } } },
            ...errorResponses(404, 502),
          },
        },
      },
      async (request) => listMcpServerTools(core.agents, core.mcpConnections, currentAccount(request).accountId, request.params.agentId, request.params.server),
    );
  });
}
