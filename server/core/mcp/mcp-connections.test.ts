import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureMcpServer, type FixtureMcpServer } from '../../../fixtures/mcp-server/fixture-mcp-server.js';
import { silentLogger } from '../logger.js';
import { McpConnections } from './mcp-connections.js';
import { defaultMcpSettings } from './mcp-settings.js';
import { McpToolError } from './mcp-tool-error.js';

const key = { accountId: 'acc_1', agentId: 'helper', server: 'fixture' };

describe('MCP connections', () => {
  let fixture: FixtureMcpServer;
  let connections: McpConnections;

  beforeAll(async () => {
    fixture = await startFixtureMcpServer({ bearer: 'fixture-token-123456' });
    connections = new McpConnections({ ...defaultMcpSettings, callTimeoutMs: 300 }, fetch, silentLogger);
  });
  afterAll(async () => {
    await connections.close();
    await fixture.close();
  });

  const server = () => ({ url: fixture.url, headers: { Authorization: 'Bearer fixture-token-123456' } });

  it('lists tools and calls them over one pooled connection', async () => {
    const tools = await connections.listTools(key, server());
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'ping', 'weather', 'slow', 'fail']));
    expect(tools.find((tool) => tool.name === 'echo')?.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
    const result = await connections.callTool(key, server(), 'echo', { text: 'hi' });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
    const weather = await connections.callTool(key, server(), 'weather', { city: 'Oslo' });
    expect(weather.structuredContent).toMatchObject({ city: 'Oslo', conditions: 'cloudy' });
    expect(fixture.sessionCount()).toBe(1);
    expect(connections.size).toBe(1);
  });

  it('turns a slow call into a timeout error and keeps the connection', async () => {
    const failure = await connections.callTool(key, server(), 'slow', { ms: 5000 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpToolError);
    expect((failure as McpToolError).kind).toBe('timeout');
    expect((await connections.callTool(key, server(), 'ping', {})).content).toEqual([{ type: 'text', text: 'pong' }]);
  });

  it('refreshes the tool list when the server announces a change', async () => {
    expect((await connections.listTools(key, server())).map((tool) => tool.name)).not.toContain('bonus');
    await connections.callTool(key, server(), 'toggle_bonus', {});
    await expect.poll(async () => (await connections.listTools(key, server())).map((tool) => tool.name)).toContain('bonus');
  });

  it('closes a connection left unused for idleCloseMs, ending its session on the server', async () => {
    const idle = new McpConnections({ ...defaultMcpSettings, idleCloseMs: 200 }, fetch, silentLogger);
    const before = fixture.openSessionCount();
    try {
      await idle.callTool({ ...key, agentId: 'idle' }, server(), 'ping', {});
      expect(idle.size).toBe(1);
      expect(fixture.openSessionCount()).toBe(before + 1);
      await expect.poll(() => idle.size).toBe(0);
      await expect.poll(() => fixture.openSessionCount()).toBe(before);
    } finally {
      await idle.close();
    }
  });

  it('ends every session when it is closed', async () => {
    const pool = new McpConnections(defaultMcpSettings, fetch, silentLogger);
    const before = fixture.openSessionCount();
    await Promise.all(['one', 'two'].map((agentId) => pool.callTool({ ...key, agentId }, server(), 'ping', {})));
    expect(fixture.openSessionCount()).toBe(before + 2);
    await pool.close();
    expect(pool.size).toBe(0);
    expect(fixture.openSessionCount()).toBe(before);
  });

  it('answers a wrong bearer and a down server with an unavailable error', async () => {
    const refused = await connections.listTools({ ...key, agentId: 'other' }, { url: fixture.url, headers: { Authorization: 'Bearer wrong' } }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpToolError);
    const down = await connections.listTools({ ...key, agentId: 'down' }, { url: 'http://127.0.0.1:9/mcp' }).catch((error: unknown) => error);
    expect(down).toBeInstanceOf(McpToolError);
    expect((down as McpToolError).kind).toBe('unavailable');
    expect((down as Error).message).toContain('"fixture" is unavailable');
  });
});
