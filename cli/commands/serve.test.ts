import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestContext } from '../test-support/test-context.js';
import { runServe, type ServeOptions } from './serve.js';

function fakeService() {
  const calls: { options?: ServeOptions; closed: boolean } = { closed: false };
  const start = async (options: ServeOptions) => {
    calls.options = options;
    return {
      accountUrl: 'http://127.0.0.1:41000',
      agentUrl: 'http://127.0.0.1:42000',
      close: async () => {
        calls.closed = true;
      },
    };
  };
  return { calls, start };
}

describe('runServe', () => {
  it('prints one JSON line with the URLs, then closes on the shutdown signal', async () => {
    const context = await createTestContext();
    const { calls, start } = fakeService();
    const running = runServe(context, { accountPort: 0, agentPort: 0, dataDir: 'data', json: true }, start);
    await expect.poll(() => context.output()).toBe('{"accountUrl":"http://127.0.0.1:41000","agentUrl":"http://127.0.0.1:42000"}\n');
    expect(calls.options).toEqual({ accountPort: 0, agentPort: 0, dataDir: resolve('data') });
    expect(calls.closed).toBe(false);
    context.shutdown('SIGINT');
    await running;
    expect(calls.closed).toBe(true);
  });

  it('prints readable URLs without --json', async () => {
    const context = await createTestContext();
    const { start } = fakeService();
    const running = runServe(context, {}, start);
    await expect.poll(() => context.output()).toContain('Press Ctrl-C to stop.');
    expect(context.output()).toContain('account service: http://127.0.0.1:41000\nagent service:   http://127.0.0.1:42000\n');
    context.shutdown();
    await running;
    expect(context.errors()).toBe('harness: SIGTERM received, stopping...\n');
  });
});
