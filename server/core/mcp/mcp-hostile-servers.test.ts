import { createServer } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHostileMcpServer, type HostileMcpServer } from '../../../fixtures/mcp-server/hostile-mcp-server.js';
import { listen } from '../../../fixtures/listen.js';
import { silentLogger } from '../logger.js';
import { McpConnections } from './mcp-connections.js';
import { defaultMcpSettings, type McpSettings } from './mcp-settings.js';
import { McpToolError } from './mcp-tool-error.js';

const key = { accountId: 'acc_hostile', agentId: 'agent', server: 'hostile' };

/** Hostile MCP servers (real HTTP, the official SDK's low-level server): none of them may stall, flood or crowd out the service. */
describe('MCP connections against hostile servers', () => {
  let json: HostileMcpServer;
  let sse: HostileMcpServer;
  const pools: McpConnections[] = [];
  const pool = (settings: Partial<McpSettings> = {}) => {
    const connections = new McpConnections({ ...defaultMcpSettings, ...settings }, fetch, silentLogger);
    pools.push(connections);
    return connections;
  };
  const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as McpToolError);

  beforeAll(async () => {
    json = await startHostileMcpServer({ hugeLength: 1024 * 1024, waitMs: 150 });
    sse = await startHostileMcpServer({ sse: true, hugeLength: 1024 * 1024 });
  });
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((connections) => connections.close()));
  });
  afterAll(async () => {
    await json.close();
    await sse.close();
  });

  it('validates structured content against a catastrophic pattern on the linear engine: the call answers and timers keep running', async () => {
    // The SDK's default validator (Ajv on JavaScript's RegExp) takes ~2^40 steps on `a`×40 + `!`: this test would never end.
    const connections = pool();
    await connections.listTools(key, { url: json.url() });
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 1);
    const error = await failure(connections.callTool(key, { url: json.url() }, 'regex', {}));
    clearInterval(ticker);
    expect(error).toBeInstanceOf(McpToolError);
    expect(error?.message).toBe('The MCP server "hostile" refused the request (its structured content does not match the tool\'s output schema).');
    expect(ticks).toBeGreaterThan(0);
  });

  it.each([
    ['JSON', () => json],
    ['SSE', () => sse],
  ])('stops reading a %s answer past HARNESS_MCP_MAX_RESPONSE_BYTES and fails the call with the bound', async (_kind, server) => {
    const connections = pool({ maxResponseBytes: 64 * 1024 });
    const error = await failure(connections.callTool(key, { url: server().url() }, 'huge', {}));
    expect(error).toBeInstanceOf(McpToolError);
    expect(error?.kind).toBe('limit');
    expect(error?.message).toBe('The MCP server "hostile" sent an answer larger than 65536 bytes, the most the service reads (HARNESS_MCP_MAX_RESPONSE_BYTES).');
    // The next call reconnects and works.
    expect((await connections.callTool(key, { url: server().url() }, 'wait', {})).content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  it('refuses a server that lists more tools, or more pages, than the bounds', async () => {
    const many = await startHostileMcpServer({ fillerTools: 300 });
    const paged = await startHostileMcpServer({ fillerTools: 30, pageSize: 2 });
    try {
      const tooMany = await failure(pool().listTools(key, { url: many.url() }));
      expect(tooMany?.message).toBe('The MCP server "hostile" lists more than 256 tools, the most the service takes from one server (HARNESS_MCP_MAX_TOOLS_PER_SERVER).');
      const tooLong = await failure(pool({ maxListPages: 5 }).listTools(key, { url: paged.url() }));
      expect(tooLong?.message).toBe('The MCP server "hostile" lists its tools in more than 5 pages, the most the service reads (HARNESS_MCP_MAX_LIST_PAGES).');
      expect(paged.requestsByMethod()['tools/list']).toBe(5);
      expect(await pool({ maxListPages: 20 }).listTools(key, { url: paged.url() })).toHaveLength(33);
    } finally {
      await many.close();
      await paged.close();
    }
  });

  it('holds one account to HARNESS_MCP_MAX_CALLS_PER_ACCOUNT calls at once, queues a few, refuses the rest, and lets another account through', async () => {
    const server = await startHostileMcpServer({ waitMs: 200 });
    try {
      const connections = pool({ maxCallsPerAccount: 1 });
      const calls = Array.from({ length: 6 }, (_, index) => failure(connections.callTool({ ...key, agentId: `agent${index}` }, { url: server.url() }, 'wait', {})));
      const other = failure(connections.callTool({ ...key, accountId: 'acc_other' }, { url: server.url() }, 'wait', {}));
      const outcomes = await Promise.all(calls);
      expect(await other).toBeUndefined();
      // One running, four waiting (4 per slot), the sixth refused at once.
      expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(5);
      const refused = outcomes.find((outcome) => outcome !== undefined);
      expect(refused?.kind).toBe('limit');
      expect(refused?.message).toContain('HARNESS_MCP_MAX_CALLS_PER_ACCOUNT');
      // Without the bound all seven calls would run at once.
      expect(server.waiting().most).toBeLessThanOrEqual(2);
    } finally {
      await server.close();
    }
  });

  it('holds one account to HARNESS_MCP_MAX_CONNECTIONS_PER_ACCOUNT open connections, closing its idle ones to make room', async () => {
    const server = await startHostileMcpServer({ waitMs: 300 });
    try {
      const connections = pool({ maxConnectionsPerAccount: 2 });
      const busy = ['one', 'two', 'three'].map((agentId) => failure(connections.callTool({ ...key, agentId }, { url: server.url() }, 'wait', {})));
      const outcomes = await Promise.all(busy);
      expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(2);
      expect(outcomes.find((outcome) => outcome !== undefined)?.message).toContain('HARNESS_MCP_MAX_CONNECTIONS_PER_ACCOUNT');
      expect(connections.openFor(key.accountId)).toBe(2);
      // All idle now: a fourth agent gets a connection by closing the least recently used one.
      await connections.callTool({ ...key, agentId: 'four' }, { url: server.url() }, 'wait', {});
      expect(connections.openFor(key.accountId)).toBe(2);
      await connections.callTool({ ...key, accountId: 'acc_other' }, { url: server.url() }, 'wait', {});
      expect(connections.openFor('acc_other')).toBe(1);
    } finally {
      await server.close();
    }
  });

  it.each([404, 500])('never echoes the body of an HTTP %i answer', async (status) => {
    const secretBody = 'SECRET-UPSTREAM-BODY sk-live-0123456789abcdef';
    const plain = createServer((_request, response) => response.writeHead(status, { 'content-type': 'text/plain' }).end(secretBody));
    const url = `${await listen(plain)}/mcp`;
    try {
      const error = await failure(pool().listTools(key, { url }));
      expect(error).toBeInstanceOf(McpToolError);
      expect(error?.message).toBe(`The MCP server "hostile" is unavailable (HTTP ${status}).`);
    } finally {
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });

  it('never echoes a body that is not JSON', async () => {
    const plain = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('SECRET-NOT-JSON {'));
    const url = `${await listen(plain)}/mcp`;
    try {
      const error = await failure(pool().listTools(key, { url }));
      expect(error?.message).toBe('The MCP server "hostile" is unavailable (its answer is not valid JSON).');
    } finally {
      plain.closeAllConnections();
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});
