import type { FastifyInstance } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { HarnessCore } from '../../core/composition/harness-core.js';
import { askToolName, createAgentMcpServer } from '../../core/mcp/agent-mcp-server.js';
import { currentAccount, requireAccount } from '../authentication.js';
import { errorBody } from '../error-handler.js';
import { documentedBody } from '../openapi/documented-body.js';
import { errorResponses, errorSchemaId } from '../openapi/error-responses.js';
import { InvalidRequestError } from '../../core/errors.js';
import { accountReadingOf } from '../../core/turns/turn-types.js';

const jsonRpcMessage = {
  type: 'object',
  additionalProperties: true,
  description: 'A JSON-RPC 2.0 message of the Model Context Protocol (or a batch of them).',
  properties: { jsonrpc: { type: 'string', const: '2.0' }, method: { type: 'string' }, id: { anyOf: [{ type: 'string' }, { type: 'number' }] }, params: { type: 'object', additionalProperties: true } },
};

/** In the shared error shape (code `invalid_request`), as every client error of the service. */
const methodNotAllowed = {
  description: '`invalid_request`: this stateless server opens no server-to-client stream (an MCP client then works without one).',
  $ref: `${errorSchemaId}#`,
};

/** What the account MCP server uses of the core: the agents as tools, and their turns under the turn budget. */
export type McpRouteParts = Pick<HarnessCore, 'accounts' | 'agents' | 'turns' | 'rateLimiters'>;

/**
 * `/mcp`: every agent of the account as an MCP tool `ask_<agentId>`, over Streamable HTTP in
 * stateless mode (each POST is answered on its own, as JSON; no session to keep on this
 * replica, so any replica can answer any request). The bearer is the account secret.
 */
export function registerMcpRoutes(app: FastifyInstance, core: McpRouteParts): void {
  requireAccount(app, core, (scope) => {
    scope.post(
      '/mcp',
      {
        schema: {
          summary: 'MCP endpoint: the account\'s agents as tools',
          description:
            'Model Context Protocol over Streamable HTTP (stateless; answers are JSON). `tools/list` gives one tool per agent, `ask_<agentId>` with input `{message, conversationKey?}`; `tools/call` runs a turn and answers with its text and status (and the pending approvals with the chat request that answers them). Send `Accept: application/json, text/event-stream`.',
          tags: ['mcp'],
          body: { anyOf: [{ type: 'object' }, { type: 'array' }] },
          response: {
            200: { description: 'The JSON-RPC answer.', anyOf: [{ type: 'object', additionalProperties: true }, { type: 'array' }] },
            202: { description: 'A notification or a response was accepted; nothing to answer.', type: 'null' },
            ...errorResponses(400, 413, 415),
          },
        },
        config: { swaggerTransform: documentedBody({ 'application/json': { schema: jsonRpcMessage } }) },
      },
      async (request, reply) => {
        const account = currentAccount(request);
        const accept = request.headers.accept ?? '';
        // Checked here so the refusal has the service's error shape (the SDK would answer a JSON-RPC 406).
        if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
          throw new InvalidRequestError('headers.accept must list both application/json and text/event-stream (MCP Streamable HTTP)');
        }
        const agents = await core.agents.list(account.accountId);
        const origin = `${request.protocol}://${request.host}`;
        const server = createAgentMcpServer({
          account: accountReadingOf(account),
          agents,
          startTurn: (turn) => core.turns.start(turn),
          turnBudget: core.rateLimiters.turns,
          origin,
        });
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        reply.hijack();
        reply.raw.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      },
    );

    scope.get(
      '/mcp',
      {
        schema: {
          summary: 'MCP endpoint: what it serves',
          description: 'With `Accept: text/event-stream` (an MCP client asking for a server-to-client stream), 405: this stateless server sends none. Otherwise a short JSON description: the transport and the tool names.',
          tags: ['mcp'],
          response: {
            200: {
              description: 'The endpoint and the account\'s tools.',
              type: 'object',
              required: ['transport', 'tools'],
              properties: { transport: { type: 'string' }, tools: { type: 'array', items: { type: 'string' } } },
            },
            405: methodNotAllowed,
          },
        },
      },
      async (request, reply) => {
        if ((request.headers.accept ?? '').includes('text/event-stream')) {
          return reply.status(405).header('allow', 'POST, DELETE').send(errorBody('invalid_request', 'This MCP server is stateless and opens no server-to-client stream; POST requests to /mcp.'));
        }
        const agents = await core.agents.list(currentAccount(request).accountId);
        return { transport: 'streamable-http (stateless, JSON answers)', tools: agents.map((agent) => askToolName(agent.agentId)) };
      },
    );

    scope.delete(
      '/mcp',
      {
        schema: {
          summary: 'MCP endpoint: end a session',
          description: 'This server keeps no sessions, so there is nothing to end: always 204.',
          tags: ['mcp'],
          response: { 204: { description: 'Nothing to end.', type: 'null' } },
        },
      },
      async (_request, reply) => reply.status(204).send(),
    );
  });
}
