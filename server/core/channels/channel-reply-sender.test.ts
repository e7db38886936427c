import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../../../fixtures/listen.js';
import type { Logger } from '../logger.js';
import { sendReplyRequests } from './channel-reply-sender.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A channel API (at an account's `apiBaseUrl`) whose answer to a reply never ends. */
async function endlessApi(): Promise<string> {
  const chunk = `{"ok":true,"pad":"${'x'.repeat(64 * 1024)}`;
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' });
    const write = (): void => {
      let open = !response.destroyed;
      while (open) open = response.write(chunk) && !response.destroyed;
      if (!response.destroyed) response.once('drain', write);
    };
    write();
  });
  servers.push(server);
  return listen(server);
}

function recordingLogger(): { logger: Logger; warnings: Record<string, unknown>[] } {
  const warnings: Record<string, unknown>[] = [];
  const ignore = (): void => undefined;
  const logger: Logger = { info: ignore, debug: ignore, error: ignore, warn: (fields) => void warnings.push(fields) };
  return { logger, warnings };
}

describe('sendReplyRequests', () => {
  it('stops reading a channel API answer that never ends at the byte limit, and counts the reply as failed', async () => {
    const origin = await endlessApi();
    const { logger, warnings } = recordingLogger();
    const request = { url: `${origin}/bot/sendMessage`, method: 'POST' as const, headers: { 'content-type': 'application/json' }, body: { text: 'hi' } };
    const sent = await sendReplyRequests([request], { fetch, logger, logFields: { provider: 'telegram' }, maxResponseBytes: 256 * 1024 });
    expect(sent).toBe(false);
    expect(warnings).toEqual([expect.objectContaining({ event: 'channel-reply', provider: 'telegram', error: 'ResponseTooLargeError' })]);
  });
});
