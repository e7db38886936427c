import { describe, expect, it } from 'vitest';
import { CliError } from '../cli-error.js';
import { runInProcess } from '../test-support/run-in-process.js';
import { signedInStubPerTest } from '../test-support/signed-in-stub.js';

const setup = signedInStubPerTest('sk_alice');

const listing = {
  server: 'docs',
  url: 'https://mcp.example.com/mcp',
  tools: [
    { name: 'search', modelName: 'docs__search', description: 'Search the docs.\nMore lines.', inputSchema: { type: 'object' }, offered: true, needsApproval: true },
    { name: 'delete', modelName: 'docs__delete', inputSchema: { type: 'object' }, offered: false, needsApproval: false },
  ],
};

describe('harness mcp test', () => {
  it("asks the agent service for the server's tools and prints them as a table", async () => {
    const { context, service } = await setup(() => ({ status: 200, body: listing }));
    await runInProcess(context, ['mcp', 'test', 'helper', 'docs']);
    expect(service.requests[0]).toMatchObject({ method: 'GET', url: '/agents/helper/mcp/docs/tools' });
    expect(service.requests[0]?.headers.authorization).toBe('Bearer sk_alice');
    expect(context.output()).toBe(
      [
        'The MCP server docs (https://mcp.example.com/mcp) lists 2 tools:',
        'TOOL          OFFERED          APPROVAL  DESCRIPTION',
        'docs__search  yes              yes       Search the docs.',
        'docs__delete  no (allow/deny)  no',
        '',
      ].join('\n'),
    );
  });

  it('prints the document with --json and turns a 502 into an error', async () => {
    const { context } = await setup(() => ({ status: 200, body: listing }));
    await runInProcess(context, ['mcp', 'test', 'helper', 'docs', '--json']);
    expect(JSON.parse(context.output())).toEqual(listing);
    const failing = await setup(() => ({ status: 502, body: { error: { code: 'upstream_error', message: 'The MCP server "docs" is unavailable (ECONNREFUSED).' } } }));
    await expect(runInProcess(failing.context, ['mcp', 'test', 'helper', 'docs'])).rejects.toThrow(CliError);
  });
});
