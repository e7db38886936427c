import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnvironment, runCli } from '../cli/e2e/run-cli.js';
import { startMockWorker, type MockWorker } from '../mock-worker/mock-worker.js';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { temporaryFolder } from './support/temporary-folder.js';

describe('both async modes end to end through the real mock worker, and the async CLI', () => {
  let stack: ChatStack;
  let worker: MockWorker;
  let account: { accountId: string; secret: string };
  let configHome: Awaited<ReturnType<typeof temporaryFolder>>;

  beforeAll(async () => {
    stack = await startChatStack();
    worker = await startMockWorker({ port: 0, delayMs: 20 });
    account = await stack.createAccount('worker-user');
    await stack.putAgent(account.secret, 'both', {
      provider: stack.provider(),
      tools: {
        test_async: { async: true, durationMs: 10 },
        test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: account.secret, workerUrl: worker.dispatchUrl },
      },
    });
    configHome = await temporaryFolder();
    await mkdir(join(configHome.path, 'harness'), { recursive: true, mode: 0o700 });
    const profile = { accountUrl: stack.accountUrl, agentUrl: stack.agentUrl, accountId: account.accountId, username: 'worker-user', secret: account.secret };
    await writeFile(join(configHome.path, 'harness', 'profiles.json'), JSON.stringify({ profiles: { default: profile } }), { mode: 0o600 });
  });
  afterAll(async () => {
    await worker.close();
    await stack.close();
    await configHome.remove();
  });

  it('a pass with both modes waits for its same-invocation work, then the worker completes the external call and the parent continues', async () => {
    const answer = (await (await stack.chat(account.secret, 'both', { conversationKey: 'k', message: 'call test_async {"label":"inline"}\ncall test_external_async {"task":"remote"}' })).json()) as {
      status: string;
      statusUrl: string;
      text: string;
    };
    expect(answer.status).toBe('waiting_async_tools');
    let final: { status: string; result?: { text: string } } = { status: 'waiting_async_tools' };
    for (let attempt = 0; attempt < 200 && !['completed', 'failed'].includes(final.status); attempt += 1) {
      await worker.settled();
      await stack.core.asyncWorker.idle();
      final = (await (await fetch(answer.statusUrl, { headers: { authorization: `Bearer ${account.secret}` } })).json()) as typeof final;
    }
    expect(final.status).toBe('completed');
    expect(final.result?.text).toContain('"completedBy":"mock-worker"');
    // The same-invocation result was settled and stored before the group was sealed; the model reads both in the continuation.
    const stored = await (await fetch(`${stack.agentUrl}/agents/both/conversations/k`, { headers: { authorization: `Bearer ${account.secret}` } })).text();
    expect(stored).toContain('"toolName":"test_async","status":"completed"');
    expect(stored).toContain('"toolName":"test_external_async","status":"completed"');
    expect(worker.received()).toHaveLength(1);
    expect(worker.completions().at(-1)).toMatchObject({ outcome: 'delivered' });
  });

  it('`harness async --wait` runs an external-dispatch turn to completion', async () => {
    const run = await runCli(['async', 'both', '-m', 'call test_external_async {"task":"from the cli"}', '--conversation', 'cli', '--wait', '--interval', '50'], cliEnvironment(configHome.path));
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('"echo":{"task":"from the cli"}');
  });
});
