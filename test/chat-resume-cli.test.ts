import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpChatSource } from '../cli/chat/chat-stream-source.js';
import { cliEnvironment, runCli } from '../cli/e2e/run-cli.js';
import { startChatStack, type ChatStack } from './support/chat-stack.js';
import { startCuttingProxy, type CuttingProxy } from './support/cutting-proxy.js';
import { pausingTurn } from './support/sse-events.js';

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('harness chat resumes after a dropped connection', () => {
  let stack: ChatStack;
  let scratch: string;
  let secret: string;
  let env: Record<string, string>;
  let proxy: CuttingProxy;

  beforeAll(async () => {
    stack = await startChatStack();
    scratch = await mkdtemp(join(tmpdir(), 'harness-chat-resume-'));
    proxy = await startCuttingProxy(stack.agentUrl, 'tool-output-available');
    // The CLI's profile names the proxy as the agent service.
    env = cliEnvironment(join(scratch, 'config'), { HARNESS_ACCOUNT_URL: stack.accountUrl, HARNESS_AGENT_URL: proxy.url });
    expect((await runCli(['account', 'create', '--username', 'dropper', '--description', 'resume'], env)).exitCode).toBe(0);
    const profiles = JSON.parse(await readFile(join(scratch, 'config', 'harness', 'profiles.json'), 'utf8')) as { profiles: { default: { secret: string } } };
    secret = profiles.profiles.default.secret;
    await stack.putAgent(secret, 'helper', { provider: stack.provider(), tools: { alphaSearch: { apiKey: 'tvly-fixture-search-key-0123456789', maxResults: 1 } } });
  });
  afterAll(async () => {
    await proxy?.close();
    await stack?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('the HTTP chat source reconnects with the last id it saw and goes on, nothing lost or repeated', async () => {
    proxy.arm();
    const cutsBefore = proxy.cuts();
    {
      const source = createHttpChatSource({ agentUrl: proxy.url, agentId: 'helper', secret, reconnect: { firstDelayMilliseconds: 50 } });
      const chunks: UIMessageChunk[] = [];
      for await (const chunk of await source.open({ conversationKey: 'dropped-source', message: pausingTurn })) chunks.push(chunk);
      expect(proxy.cuts()).toBe(cutsBefore + 1);
      const count = (type: string) => chunks.filter((chunk) => chunk.type === type).length;
      expect(count('start')).toBe(1);
      expect(count('tool-input-available')).toBe(1);
      expect(count('tool-output-available')).toBe(1);
      expect(count('finish')).toBe(1);
      expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'completed' } });
      const text = chunks.flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.delta] : [])).join('');
      expect(occurrences(text, 'the rest of the answer')).toBe(1);
    }
  });

  it('`harness chat -m` prints the whole answer once when its connection is cut mid-turn', async () => {
    proxy.arm();
    const cutsBefore = proxy.cuts();
    const result = await runCli(['chat', 'helper', '--conversation', 'dropped-cli', '-m', pausingTurn], env);
    expect(proxy.cuts()).toBe(cutsBefore + 1);
    expect(result.exitCode).toBe(0);
    expect(occurrences(result.stdout, 'the rest of the answer')).toBe(1);
  });
});
