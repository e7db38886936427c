import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profilesPath, saveProfile } from '../cli/profiles.js';
import { runInProcess } from '../cli/test-support/run-in-process.js';
import { createTestContext } from '../cli/test-support/test-context.js';
import { startFixtureMcpServer, type FixtureMcpServer } from '../fixtures/mcp-server/fixture-mcp-server.js';
import { defaultMcpSettings } from '../server/core/mcp/mcp-settings.js';
import { startSandboxStack, toolResults, type SandboxStack } from './support/sandbox-stack.js';
import { storedRowsText } from './support/test-storage.js';

/** Agents on the fixture MCP server (over real HTTP): its tools in turns, approvals, failures, config rules and secrets. */

const fixtureToken = 'fixture-mcp-token-0123456789';
const call = (tool: string, input: unknown = {}) => `call ${tool} ${JSON.stringify(input)}`;

async function filesText(folder: string): Promise<string> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(entries.filter((entry) => entry.isFile()).map((entry) => readFile(path.join(entry.parentPath, entry.name), 'latin1')));
  return texts.join('\n');
}

describe('MCP servers as tools', () => {
  let stack: SandboxStack;
  let fixture: FixtureMcpServer;
  let secret: string;
  let accountId: string;
  let turn = 0;
  const key = () => `mcp-${(turn += 1)}`;

  beforeAll(async () => {
    fixture = await startFixtureMcpServer({ bearer: fixtureToken });
    stack = await startSandboxStack({ mcp: { ...defaultMcpSettings, callTimeoutMs: 500, connectTimeoutMs: 2000 } });
    ({ secret, accountId } = await stack.createAccount('mcp-user'));
  });
  afterAll(async () => {
    await stack.close();
    await fixture.close();
  });

  const fixtureServer = (extra: Record<string, unknown> = {}) => ({ url: fixture.url, headers: { Authorization: `Bearer ${fixtureToken}` }, ...extra });
  const put = async (agentId: string, mcp: Record<string, unknown>) => {
    const reply = await stack.putAgent(secret, agentId, { provider: stack.provider(), mcp });
    if (reply.status >= 300) throw new Error(JSON.stringify(reply.body));
  };

  it('offers each tool as <server>__<tool> with the server schema, and runs a call through a turn', async () => {
    await put('mcp-agent', { fixture: fixtureServer() });
    const answer = await stack.chat(secret, 'mcp-agent', key(), `${call('fixture__echo', { text: 'hello over MCP' })}\nthen done`);
    expect(stack.lastOfferedTools()).toEqual(expect.arrayContaining(['fixture__echo', 'fixture__fail', 'fixture__ping', 'fixture__slow', 'fixture__weather']));
    expect(stack.lastToolDescription('fixture__echo')).toBe('Echoes the text back.');
    expect(answer.status).toBe('completed');
    expect(toolResults(answer.messages)).toEqual([{ toolName: 'fixture__echo', output: { text: 'Echo: hello over MCP', content: [{ type: 'text', text: 'Echo: hello over MCP' }] } }]);
    const offered = (stack.model.calls().at(-1)?.body as { tools: { function: { name: string; parameters: unknown } }[] }).tools;
    expect(offered.find((entry) => entry.function.name === 'fixture__echo')?.function.parameters).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
  });

  it('calls a tool without arguments and one with structured content', async () => {
    const answer = await stack.chat(secret, 'mcp-agent', key(), `${call('fixture__ping')}\n${call('fixture__weather', { city: 'Oslo' })}\nthen done`);
    expect(toolResults(answer.messages)).toEqual([
      { toolName: 'fixture__ping', output: { text: 'pong', content: [{ type: 'text', text: 'pong' }] } },
      {
        toolName: 'fixture__weather',
        output: { text: expect.any(String), content: [{ type: 'text', text: expect.stringContaining('"city":"Oslo"') }], structuredContent: { city: 'Oslo', temperatureC: 16, conditions: 'cloudy' } },
      },
    ]);
  });

  it('turns a slow tool, a failing tool and a down server into tool errors, never a failed turn', async () => {
    const slow = await stack.chat(secret, 'mcp-agent', key(), `${call('fixture__slow', { ms: 10_000 })}\nthen done`);
    expect(slow.status).toBe('completed');
    expect(JSON.stringify(toolResults(slow.messages))).toContain('did not answer the call of slow within 500 ms');
    const failing = await stack.chat(secret, 'mcp-agent', key(), `${call('fixture__fail')}\nthen done`);
    expect(failing.status).toBe('completed');
    expect(JSON.stringify(toolResults(failing.messages))).toContain('The fixture tool failed on purpose.');
    await put('mcp-down', { down: { url: 'http://127.0.0.1:9/mcp', tools: { allow: ['echo'] } } });
    const down = await stack.chat(secret, 'mcp-down', key(), `${call('down__echo', { text: 'x' })}\nthen done`);
    expect(stack.lastOfferedTools()).toEqual(['down__echo']);
    expect(down.status).toBe('completed');
    expect(JSON.stringify(toolResults(down.messages))).toContain('The MCP server \\"down\\" is unavailable');
  });

  it('answers a call of a tool of a server that was down from the start (no allow list) with a tool error naming the server', async () => {
    await put('mcp-down-open', { down: { url: 'http://127.0.0.1:9/mcp' } });
    const answer = await stack.chat(secret, 'mcp-down-open', key(), 'call! down__lookup {"q":"x"}\nthen done');
    expect(stack.lastOfferedTools()).toEqual([]);
    expect(answer.status).toBe('completed');
    const [result] = toolResults(answer.messages);
    expect(result?.toolName).toBe('down__lookup');
    expect(String(result?.output)).toContain('down__lookup is a tool of the MCP server "down", which could not be reached when this turn started');
    expect(String(result?.output)).toContain('The MCP server "down" is unavailable');
    // The model's next step saw that error and the turn went on.
    expect(answer.text).toContain('could not be reached');
  });

  it('asks for approval where needsApproval says so, and runs the tool only when approved', async () => {
    await put('mcp-gated', { fixture: fixtureServer({ needsApproval: { echo: true } }) });
    const approvedKey = key();
    const waiting = await stack.chat(secret, 'mcp-gated', approvedKey, `${call('fixture__echo', { text: 'gated' })}\nthen done`);
    expect(waiting.status).toBe('awaiting_approval');
    expect(waiting.pendingApprovals).toEqual([expect.objectContaining({ toolName: 'fixture__echo', input: { text: 'gated' } })]);
    const before = fixture.calls().length;
    const approved = await stack.chat(secret, 'mcp-gated', approvedKey, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: waiting.pendingApprovals[0]!.approvalId, approved: true }] } as unknown as string);
    expect(approved.status).toBe('completed');
    expect(toolResults(approved.messages)).toEqual([{ toolName: 'fixture__echo', output: { text: 'Echo: gated', content: [{ type: 'text', text: 'Echo: gated' }] } }]);
    expect(fixture.calls().slice(before)).toEqual([{ tool: 'echo', arguments: { text: 'gated' } }]);

    const deniedKey = key();
    const second = await stack.chat(secret, 'mcp-gated', deniedKey, `${call('fixture__echo', { text: 'never' })}\nthen done`);
    const denied = await stack.chat(secret, 'mcp-gated', deniedKey, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: second.pendingApprovals[0]!.approvalId, approved: false }] } as unknown as string);
    expect(denied.status).toBe('completed');
    expect(fixture.calls().some((entry) => JSON.stringify(entry.arguments).includes('never'))).toBe(false);
    // Tools not named stay ungated.
    const ping = await stack.chat(secret, 'mcp-gated', key(), `${call('fixture__ping')}\nthen done`);
    expect(ping.status).toBe('completed');
  });

  it('offers only what tools.allow and tools.deny let through', async () => {
    await put('mcp-filtered', { fixture: fixtureServer({ tools: { allow: ['echo', 'ping', 'weather'], deny: ['weather'] } }) });
    await stack.chat(secret, 'mcp-filtered', key(), 'hello');
    expect(stack.lastOfferedTools()).toEqual(['fixture__echo', 'fixture__ping']);
  });

  it('offers a tool the server adds after its list-changed notification', async () => {
    await put('mcp-changing', { fixture: fixtureServer() });
    await stack.chat(secret, 'mcp-changing', key(), 'hello');
    expect(stack.lastOfferedTools()).not.toContain('fixture__bonus');
    await stack.chat(secret, 'mcp-changing', key(), `${call('fixture__toggle_bonus')}\nthen done`);
    await expect
      .poll(async () => {
        await stack.chat(secret, 'mcp-changing', key(), 'hello');
        return stack.lastOfferedTools();
      })
      .toContain('fixture__bonus');
    fixture.toggleBonus();
  });

  it('keeps header values encrypted at rest, redacted on read, and kept when the redacted form comes back', async () => {
    await put('mcp-secret', { fixture: fixtureServer() });
    const read = await fetch(`${stack.accountUrl}/accounts/me/agents/mcp-secret`, { headers: { authorization: `Bearer ${secret}` } });
    const view = (await read.json()) as { config: { mcp: { fixture: { headers: Record<string, unknown> } } } };
    expect(view.config.mcp.fixture.headers).toEqual({ Authorization: { redacted: true, last4: fixtureToken.slice(-4) } });
    const stored = (await storedRowsText(`${stack.dataDir}/tables`)) ?? (await filesText(stack.dataDir));
    expect(stored).toContain('mcp-secret');
    expect(stored).not.toContain(fixtureToken);
    const back = await stack.putAgent(secret, 'mcp-secret', view.config as unknown as Record<string, unknown>);
    expect(back.status).toBe(200);
    const answer = await stack.chat(secret, 'mcp-secret', key(), `${call('fixture__ping')}\nthen done`);
    expect(toolResults(answer.messages)).toEqual([{ toolName: 'fixture__ping', output: { text: 'pong', content: [{ type: 'text', text: 'pong' }] } }]);
  });

  it('refuses server names that clash with other tools or cannot prefix a tool name, with a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ bash: { url: fixture.url } }, 'config.mcp.bash: "bash" clashes with the built-in tool'],
      [{ run_subagent: { url: fixture.url } }, 'config.mcp.run_subagent: "run_subagent" clashes'],
      [{ 'a__b': { url: fixture.url } }, 'config.mcp.a__b: a server name must be'],
      [{ fixture: { url: 'ftp://example.com' } }, 'config.mcp.fixture.url must be an absolute http(s) URL'],
      [{ fixture: { url: fixture.url, tools: { allow: ['bad name'] } } }, 'is not 1-64 characters'],
      [{ fixture: { url: fixture.url, headers: { Authorization: 5 } } }, 'config.mcp.fixture.headers.Authorization'],
      [{ fixture: { url: fixture.url, extra: true } }, 'config.mcp.fixture.extra is not allowed here'],
    ];
    for (const [mcp, message] of cases) {
      const reply = await stack.putAgent(secret, 'mcp-bad', { provider: stack.provider(), mcp });
      expect(reply.status, JSON.stringify(mcp)).toBe(400);
      expect((reply.body as { error: { message: string } }).error.message).toContain(message);
    }
  });

  it('harness mcp test route lists a server\'s tools, and answers 404 and 502 where it cannot', async () => {
    const list = await fetch(`${stack.agentUrl}/agents/mcp-agent/mcp/fixture/tools`, { headers: { authorization: `Bearer ${secret}` } });
    expect(list.status).toBe(200);
    const body = (await list.json()) as { tools: { name: string; modelName: string; offered: boolean }[] };
    expect(body.tools.find((tool) => tool.name === 'echo')).toMatchObject({ modelName: 'fixture__echo', offered: true });
    expect((await fetch(`${stack.agentUrl}/agents/mcp-agent/mcp/nope/tools`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(404);
    expect((await fetch(`${stack.agentUrl}/agents/mcp-down/mcp/down/tools`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(502);
  });

  it('harness mcp test <agent> <server> prints the tools the model sees', async () => {
    const context = await createTestContext();
    await saveProfile(profilesPath(context.env, context.homeDir), 'default', { accountUrl: stack.accountUrl, agentUrl: stack.agentUrl, accountId, username: 'mcp-user', secret });
    await runInProcess(context, ['mcp', 'test', 'mcp-filtered', 'fixture']);
    const output = context.output();
    expect(output).toContain(`The MCP server fixture (${fixture.url}) lists`);
    expect(output).toMatch(/fixture__echo\s+yes\s+no\s+Echoes the text back\./);
    expect(output).toMatch(/fixture__weather\s+no \(allow\/deny\)/);
  });
});
