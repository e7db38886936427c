import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxStack, type SandboxStack } from './support/sandbox-stack.js';

/** Every agent of an account as an MCP tool at /mcp, called with the official SDK's client over real HTTP. */

interface AskOutput {
  conversationKey: string;
  status: string;
  text: string;
  pendingApprovals?: { approvalId: string; toolName: string; input: unknown }[];
  howToAnswerApprovals?: { method: string; url: string; body: unknown };
}

describe('/mcp', () => {
  let stack: SandboxStack;
  let secret: string;
  let otherSecret: string;
  const clients: Client[] = [];

  const connect = async (bearer: string): Promise<Client> => {
    const client = new Client({ name: 'harness-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${stack.agentUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } });
    await client.connect(transport);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    stack = await startSandboxStack();
    ({ secret } = await stack.createAccount('mcp-owner'));
    ({ secret: otherSecret } = await stack.createAccount('mcp-stranger'));
    for (const [agentId, config] of [
      ['helper', { system: 'You help.' }],
      ['searcher', { tools: { alphaSearch: { needsApproval: true } } }],
    ] as const) {
      const reply = await stack.putAgent(secret, agentId, { provider: stack.provider(), ...config });
      if (reply.status >= 300) throw new Error(JSON.stringify(reply.body));
    }
    const reply = await stack.putAgent(otherSecret, 'hidden', { provider: stack.provider() });
    if (reply.status >= 300) throw new Error(JSON.stringify(reply.body));
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await stack.close();
  });

  it("lists one ask_<agentId> tool per agent of the account, and none of another account's", async () => {
    const client = await connect(secret);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['ask_helper', 'ask_searcher']);
    expect(tools[0]?.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' }, conversationKey: { type: 'string' } }, required: ['message'] });
    expect(tools[0]?.outputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' }, status: { type: 'string' }, conversationKey: { type: 'string' }, eventId: { type: 'string' }, pendingApprovals: { type: 'array' } },
      required: expect.arrayContaining(['text', 'status', 'conversationKey']),
    });
    const other = await connect(otherSecret);
    expect((await other.listTools()).tools.map((tool) => tool.name)).toEqual(['ask_hidden']);
  });

  it('runs a turn and answers with its text and status, continuing a conversation by its key', async () => {
    const client = await connect(secret);
    const first = await client.callTool({ name: 'ask_helper', arguments: { message: 'hello from MCP' } });
    const output = first.structuredContent as unknown as AskOutput;
    expect(first.isError).toBeFalsy();
    expect(output).toEqual({ text: 'Echo: hello from MCP', status: 'completed', conversationKey: expect.stringMatching(/^mcp-/) });
    // The turn's text first; then the structured result as JSON, for clients that read text only.
    expect(first.content).toEqual([
      { type: 'text', text: 'Echo: hello from MCP' },
      { type: 'text', text: JSON.stringify(first.structuredContent) },
    ]);
    const second = await client.callTool({ name: 'ask_helper', arguments: { message: 'again', conversationKey: output.conversationKey } });
    expect((second.structuredContent as unknown as AskOutput).conversationKey).toBe(output.conversationKey);
    const stored = await fetch(`${stack.agentUrl}/agents/helper/conversations/${encodeURIComponent(output.conversationKey)}`, { headers: { authorization: `Bearer ${secret}` } });
    expect(((await stored.json()) as { messages: unknown[] }).messages).toHaveLength(4);
  });

  it('answers a turn that stops for approval with the pending approval and the request that answers it', async () => {
    const client = await connect(secret);
    const result = await client.callTool({ name: 'ask_searcher', arguments: { message: 'search: otters', conversationKey: 'mcp-approval' } });
    const output = result.structuredContent as unknown as AskOutput;
    expect(output.status).toBe('awaiting_approval');
    expect(output.pendingApprovals).toEqual([expect.objectContaining({ toolName: 'alphaSearch', input: { query: 'otters' } })]);
    expect(output.howToAnswerApprovals).toMatchObject({ method: 'POST', url: `${stack.agentUrl}/agents/searcher/chat` });
    expect((result.content as { text: string }[])[0]?.text).toContain('waiting for approval of alphaSearch');
    expect(JSON.parse((result.content as { text: string }[])[1]!.text)).toEqual(result.structuredContent);
    const answer = await fetch(output.howToAnswerApprovals!.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(output.howToAnswerApprovals!.body),
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { status: string }).status).toBe('completed');
  });

  it('refuses a wrong bearer with 401 in the error shape', async () => {
    const response = await fetch(`${stack.agentUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer hsk_wrong', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    await expect(connect('hsk_wrong')).rejects.toThrow();
  });

  it('gives an unknown agent and a refused turn as tool errors', async () => {
    const client = await connect(secret);
    const unknown = await client.callTool({ name: 'ask_hidden', arguments: { message: 'hi' } });
    expect(unknown.isError).toBe(true);
    const empty = await client.callTool({ name: 'ask_helper', arguments: { message: '' } });
    expect(empty.isError).toBe(true);
  });

  it('GET /mcp describes the endpoint, refuses a stream, and DELETE has nothing to end', async () => {
    const described = await fetch(`${stack.agentUrl}/mcp`, { headers: { authorization: `Bearer ${secret}` } });
    expect(await described.json()).toEqual({ transport: expect.any(String), tools: ['ask_helper', 'ask_searcher'] });
    const stream = await fetch(`${stack.agentUrl}/mcp`, { headers: { authorization: `Bearer ${secret}`, accept: 'text/event-stream' } });
    expect(stream.status).toBe(405);
    const ended = await fetch(`${stack.agentUrl}/mcp`, { method: 'DELETE', headers: { authorization: `Bearer ${secret}` } });
    expect(ended.status).toBe(204);
  });
});
