import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../fixtures/listen.js';
import { startHostileMcpServer, type HostileMcpServer } from '../fixtures/mcp-server/hostile-mcp-server.js';
import { defaultMcpSettings } from '../server/core/mcp/mcp-settings.js';
import { startSandboxStack, toolResults, type SandboxStack } from './support/sandbox-stack.js';

/** Issue 23 through the service: a hostile MCP server an account names cannot stall a turn, leak its body, or fan out without bound. */

const secretBody = 'SECRET-UPSTREAM-BODY sk-live-0123456789abcdef';
const call = (tool: string, input: unknown = {}) => `call ${tool} ${JSON.stringify(input)}`;

describe('MCP limits through the service', () => {
  let stack: SandboxStack;
  let hostile: HostileMcpServer;
  let plain: Server;
  let plainUrl: string;
  let secret: string;

  beforeAll(async () => {
    hostile = await startHostileMcpServer({ hugeLength: 256 * 1024 });
    plain = createServer((_request, response) => response.writeHead(404, { 'content-type': 'text/html' }).end(secretBody));
    plainUrl = `${await listen(plain)}/mcp`;
    stack = await startSandboxStack({ mcp: { ...defaultMcpSettings, maxServersPerAgent: 3, maxResponseBytes: 64 * 1024, callTimeoutMs: 5000, connectTimeoutMs: 5000 } });
    ({ secret } = await stack.createAccount('mcp-limits'));
  });
  afterAll(async () => {
    await stack.close();
    await hostile.close();
    plain.closeAllConnections();
    await new Promise((resolve) => plain.close(resolve));
  });

  it('refuses a config naming more MCP servers than HARNESS_MCP_MAX_SERVERS_PER_AGENT', async () => {
    const mcp = Object.fromEntries(['one', 'two', 'three', 'four'].map((name) => [name, { url: hostile.url(`/${name}`) }]));
    const reply = await stack.putAgent(secret, 'too-many', { provider: stack.provider(), mcp });
    expect(reply.status).toBe(400);
    expect((reply.body as { error: { message: string } }).error.message).toBe('config.mcp names 4 MCP servers; an agent may use at most 3 (HARNESS_MCP_MAX_SERVERS_PER_AGENT)');
  });

  it('answers a catastrophic output pattern and an oversized answer as tool errors, and the turn completes', async () => {
    expect((await stack.putAgent(secret, 'hostile', { provider: stack.provider(), mcp: { hostile: { url: hostile.url() } } })).status).toBe(201);
    const answer = await stack.chat(secret, 'hostile', 'turn-1', `${call('hostile__regex')}\n${call('hostile__huge')}\nthen done`);
    expect(answer.status).toBe('completed');
    const results = JSON.stringify(toolResults(answer.messages));
    expect(results).toContain("its structured content does not match the tool's output schema");
    expect(results).toContain('sent an answer larger than 65536 bytes, the most the service reads (HARNESS_MCP_MAX_RESPONSE_BYTES)');
  });

  it('lists tools of a server answering HTTP 404 as a 502 that names the status, never the body', async () => {
    expect((await stack.putAgent(secret, 'plain', { provider: stack.provider(), mcp: { plain: { url: plainUrl } } })).status).toBe(201);
    const reply = await fetch(`${stack.agentUrl}/agents/plain/mcp/plain/tools`, { headers: { authorization: `Bearer ${secret}` } });
    expect(reply.status).toBe(502);
    const text = await reply.text();
    expect(text).not.toContain('SECRET-UPSTREAM-BODY');
    expect(JSON.parse(text)).toEqual({ error: { code: 'upstream_error', message: 'The MCP server "plain" is unavailable (HTTP 404).' } });
    const answer = await stack.chat(secret, 'plain', 'turn-2', 'hello');
    expect(JSON.stringify(answer)).not.toContain('SECRET-UPSTREAM-BODY');
  });
});
