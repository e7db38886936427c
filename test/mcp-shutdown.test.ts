import { describe, expect, it } from 'vitest';
import { startFixtureMcpServer } from '../fixtures/mcp-server/fixture-mcp-server.js';
import { defaultMcpSettings } from '../server/core/mcp/mcp-settings.js';
import { startChatStack } from './support/chat-stack.js';

/** What an MCP server sees when the service stops: its sessions ended and no socket left open, so it can stop right after. */
describe('stopping the services with MCP connections pooled', () => {
  it('ends every MCP session and closes every socket to the MCP server', async () => {
    const fixture = await startFixtureMcpServer();
    // Pooled for an hour: only the stop can close the connection.
    const stack = await startChatStack({ mcp: { ...defaultMcpSettings, idleCloseMs: 3_600_000 } });
    try {
      const { secret } = await stack.createAccount('mcp-shutdown');
      await stack.putAgent(secret, 'pooled', { provider: stack.provider(), mcp: { fixture: { url: fixture.url } } });
      const answer = await stack.chat(secret, 'pooled', { conversationKey: 'stop', message: 'call fixture__ping {}\nthen done' });
      expect(((await answer.json()) as { status: string }).status).toBe('completed');
      expect(fixture.openSessionCount()).toBe(1);
      expect(await fixture.openConnectionCount()).toBeGreaterThan(0);
    } finally {
      await stack.close();
    }
    try {
      expect(fixture.openSessionCount()).toBe(0);
      await expect.poll(() => fixture.openConnectionCount()).toBe(0);
    } finally {
      await fixture.close();
    }
  });
});
