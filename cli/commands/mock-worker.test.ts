import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createTestContext } from '../test-support/test-context.js';
import { runInProcess } from '../test-support/run-in-process.js';

describe('harness mock-worker', () => {
  it('prints its URLs, completes a dispatch at the given URL, and stops on the shutdown signal', async () => {
    const completions: { url: string; authorization?: string; body: string }[] = [];
    const receiver = createServer((request, reply) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        completions.push({ url: request.url ?? '', authorization: request.headers.authorization, body });
        reply.writeHead(202, { 'content-type': 'application/json' }).end('{"continuation":"accepted"}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    const context = await createTestContext();
    const running = runInProcess(context, ['mock-worker', '--port', '0', '--delay', '0', '--json']);
    await expect.poll(() => context.output()).toContain('\n');
    const { url, dispatchUrl } = JSON.parse(context.output()) as { url: string; dispatchUrl: string };
    expect(dispatchUrl).toBe(`${url}/dispatch`);

    const reply = await fetch(dispatchUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resultId: 'res_1', toolCallId: 'call_1', toolName: 'test_external_async', input: { n: 1 }, completeUrl: `${receiverUrl}/async-tools/res_1/complete`, completionHeaders: { Authorization: 'Bearer sk_demo_secret' } }),
    });
    expect(reply.status).toBe(202);
    await expect.poll(() => completions.length).toBe(1);
    expect(completions[0]).toMatchObject({ url: '/async-tools/res_1/complete', authorization: 'Bearer sk_demo_secret' });
    expect(JSON.parse(completions[0]?.body ?? '')).toMatchObject({ status: 'completed', response: { resultId: 'res_1', echo: { n: 1 }, completedBy: 'mock-worker' } });
    await expect.poll(() => context.errors()).toContain('res_1: completed at');
    expect(context.errors()).not.toContain('sk_demo_secret');

    context.shutdown('SIGINT');
    await running;
    await expect(fetch(`${url}/`)).rejects.toThrow();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('prints readable URLs and the hint about completionBaseUrl without --json', async () => {
    const context = await createTestContext();
    const running = runInProcess(context, ['mock-worker', '--port', '0']);
    await expect.poll(() => context.output()).toContain('Press Ctrl-C to stop.');
    expect(context.output()).toMatch(/^mock worker: {2}http:\/\/127\.0\.0\.1:\d+\ndispatch url: http:\/\/127\.0\.0\.1:\d+\/dispatch\n/);
    expect(context.output()).toContain('completionBaseUrl must be the agent service');
    context.shutdown();
    await running;
    expect(context.errors()).toBe('harness: SIGTERM received, stopping...\n');
  });

  it('refuses a bad --fail-rate as a usage error', async () => {
    const context = await createTestContext();
    await expect(runInProcess(context, ['mock-worker', '--fail-rate', '1.5'])).rejects.toThrow();
    expect(context.errors()).toContain('expected a number from 0 to 1');
  });
});
