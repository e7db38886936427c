import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { parseJsonOrText, readBody } from '../../fixtures/http-body.js';
import { listen } from '../../fixtures/listen.js';
import { writable } from './writable.js';

/** The pattern whose backtracking explodes on `a`×n + `!` (each extra `a` doubles the work). */
export const catastrophicPattern = '^(a+)+$';

export interface EvilMcpOptions {
  /** Bytes of the `huge` tool's text answer (default 100 MB). */
  hugeBytes?: number;
  /** `a`s before the `!` in the `regex` tool's structured content (default 27). */
  regexLength?: number;
}

export interface EvilMcpServer {
  /** An MCP endpoint; any path under `/mcp/` is the same server, so one process can pose as many servers. */
  url(path?: string): string;
  /** The origin's port, for `HARNESS_OUTBOUND_ALLOW`. */
  port: number;
  /** Requests by JSON-RPC method (`initialize`, `tools/list`, `tools/call`...). */
  requestsByMethod(): Record<string, number>;
  /** Bytes of `huge` answers written so far (a client that hangs up stops the writing). */
  hugeBytesWritten(): number;
  close(): Promise<void>;
}

const tools = [
  {
    name: 'regex',
    description: 'Answers structured content checked against an output schema with a pattern.',
    inputSchema: { type: 'object' as const, properties: {} },
    outputSchema: { type: 'object' as const, properties: { s: { type: 'string', pattern: catastrophicPattern } }, required: ['s'] },
  },
  { name: 'huge', description: 'Answers a very large text.', inputSchema: { type: 'object' as const, properties: {} } },
];

/**
 * A hostile MCP server an account can name, built on the official SDK's low-level `Server`
 * (stateless Streamable HTTP, JSON answers). The SDK's `McpServer` would check the output
 * schema itself (and stall this test process); the low-level server sends what it is told:
 * - `regex`: lists an `outputSchema` with `"pattern": "^(a+)+$"` and answers
 *   `structuredContent: {s: "aaa...a!"}`, which a backtracking validator takes seconds on;
 * - `huge`: answers one text part of `hugeBytes`, streamed by hand so this process never holds it.
 */
export async function startEvilMcpServer(options: EvilMcpOptions = {}): Promise<EvilMcpServer> {
  const hugeBytes = options.hugeBytes ?? 100 * 1024 * 1024;
  const regexLength = options.regexLength ?? 27;
  const methods: Record<string, number> = {};
  let hugeWritten = 0;

  const mcpServer = () => {
    const server = new Server({ name: 'evil-mcp', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, () => {
      const structured = { s: `${'a'.repeat(regexLength)}!` };
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
    });
    return server;
  };

  const writeHuge = async (response: ServerResponse, id: unknown): Promise<void> => {
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = 'x'.repeat(64 * 1024);
    const write = async (text: string) => {
      if (!response.write(text)) await writable(response);
    };
    await write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`);
    for (let sent = 0; sent < hugeBytes && !response.destroyed; sent += chunk.length) {
      await write(chunk);
      hugeWritten += chunk.length;
    }
    response.end('"}]}}');
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (!request.url?.startsWith('/mcp')) {
      response.writeHead(404).end();
      return;
    }
    if (request.method !== 'POST') {
      // Stateless: no standalone SSE stream and no sessions to end.
      response.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const body = parseJsonOrText(await readBody(request)) as { method?: string; id?: unknown; params?: { name?: string } };
    const method = body.method ?? 'unknown';
    methods[method] = (methods[method] ?? 0) + 1;
    if (method === 'tools/call' && body.params?.name === 'huge') return writeHuge(response, body.id);
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  };

  const http = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
      else response.destroy();
    });
  });
  const origin = await listen(http);
  return {
    url: (path = '') => `${origin}/mcp/${path}`,
    port: Number(new URL(origin).port),
    requestsByMethod: () => ({ ...methods }),
    hugeBytesWritten: () => hugeWritten,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
