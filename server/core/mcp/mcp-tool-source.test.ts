import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileMcpServer, type HostileMcpServer } from '../../../fixtures/mcp-server/hostile-mcp-server.js';
import { silentLogger } from '../logger.js';
import type { ToolContext } from '../tools/tool-context.js';
import { McpConnections } from './mcp-connections.js';
import { defaultMcpSettings } from './mcp-settings.js';
import { mcpToolSource } from './mcp-tool-source.js';

describe('MCP tool source', () => {
  let server: HostileMcpServer;
  let connections: McpConnections;
  const warnings: string[] = [];
  const context: ToolContext = {
    accountId: 'acc_1',
    agentId: 'agent',
    conversationKey: 'c',
    turnId: 'turn_1',
    transport: 'json',
    environment: { alphaBaseUrl: 'http://127.0.0.1:9' },
    providerName: 'openai',
    providerTools: {},
    logger: { ...silentLogger, warn: (_fields, message) => warnings.push(String(message)) },
    fetch,
  };

  beforeAll(async () => {
    server = await startHostileMcpServer();
    connections = new McpConnections(defaultMcpSettings, fetch, silentLogger);
  });
  afterAll(async () => {
    await connections.close();
    await server.close();
  });

  it('uses only the first HARNESS_MCP_MAX_SERVERS_PER_AGENT servers of a config written before the bound, with a warning', async () => {
    const mcp = Object.fromEntries(['one', 'two', 'three'].map((name) => [name, { url: server.url(`/${name}`), tools: { allow: ['wait'] } }]));
    const tools = await mcpToolSource(connections, 2).build({ mcp }, context);
    expect(Object.keys(tools).sort()).toEqual(['one__wait', 'two__wait']);
    expect(server.requestsByMethod()['tools/list']).toBe(2);
    expect(warnings).toEqual(['config.mcp names more than 2 MCP servers (HARNESS_MCP_MAX_SERVERS_PER_AGENT); three not used']);
  });
});
