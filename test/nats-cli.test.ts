import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { words } from '../fixtures/model-server/model-plan.js';
import { createApiClient } from '../cli/api-client.js';
import { createNatsChatSource, type NatsChatSource } from '../cli/chat/nats-stream-source.js';
import { cliEnvironment, runCli } from '../cli/e2e/run-cli.js';
import { isFinalChunk } from '../server/nats/nats-protocol.js';
import { startRecordingWorker } from './support/recording-worker.js';
import { startNatsStack, type NatsStack, type NatsTestAccount } from './support/nats-stack.js';

let stack: NatsStack;
let alice: NatsTestAccount;
const sources: NatsChatSource[] = [];

beforeAll(async () => {
  stack = await startNatsStack();
  alice = await stack.createAccountWithEcho('alice');
  await stack.waitForNats();
});

afterAll(async () => {
  await Promise.allSettled(sources.map((source) => source.close()));
  await stack?.close();
});

function source(agentId: string, onReplay?: (afterSequence: number) => void): NatsChatSource {
  const created = createNatsChatSource({ accountService: createApiClient({ baseUrl: stack.accountUrl, serviceName: 'account', secret: alice.secret }), agentId, secret: alice.secret, onReplay });
  sources.push(created);
  return created;
}

const text = (chunks: UIMessageChunk[]) => chunks.map((chunk) => (chunk.type === 'text-delta' ? chunk.delta : '')).join('');

describe('the CLI NATS stream source', () => {
  it('streams a turn over WebSocket to the final finish', async () => {
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of await source('echo').open({ conversationKey: 'cli', message: 'hello over nats' })) chunks.push(chunk);
    expect(text(chunks)).toBe('Echo: hello over nats');
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', messageMetadata: { status: 'completed' } });
  });

  it('keeps listening after waiting_async_tools until the continuation finishes', async () => {
    const worker = await startRecordingWorker();
    try {
      await stack.putAgent(alice.secret, 'dispatcher', {
        provider: stack.provider(),
        tools: { test_external_async: { async: true, execution: 'external-dispatch', completionBaseUrl: stack.agentUrl, completionBearerToken: alice.secret, workerUrl: worker.dispatchUrl } },
      });
      const statuses: unknown[] = [];
      const chunks: UIMessageChunk[] = [];
      for await (const chunk of await source('dispatcher').open({ conversationKey: 'cli-async', message: 'call test_external_async {}' })) {
        chunks.push(chunk);
        if (chunk.type !== 'finish') continue;
        statuses.push((chunk.messageMetadata as { status: string }).status);
        if (!isFinalChunk(chunk)) void worker.complete(worker.dispatches[0]!, { status: 'completed', response: { from: 'worker' } });
      }
      expect(statuses).toEqual(['waiting_async_tools', 'completed']);
      expect(text(chunks)).toContain('"from":"worker"');
    } finally {
      await worker.close();
    }
  });

  it('resumes a dropped stream by replay without losing or repeating text', async () => {
    stack.model.setOptions({ chunkDelayMs: 3 });
    try {
      const replays: number[] = [];
      const chat = source('echo', (afterSequence) => replays.push(afterSequence));
      const chunks: UIMessageChunk[] = [];
      for await (const chunk of await chat.open({ conversationKey: 'cli-drop', message: 'long: 200' })) {
        chunks.push(chunk);
        // Drop the WebSocket mid-turn: the client reconnects by itself, and what was published meanwhile is gone.
        if (chunks.length === 30) void chat.connection()!.reconnect();
      }
      expect(replays).toHaveLength(1);
      expect(replays[0]).toBeGreaterThan(0);
      expect(text(chunks)).toBe(words(200));
      expect(chunks.filter((chunk) => chunk.type === 'start')).toHaveLength(1);
      expect(chunks.filter((chunk) => chunk.type === 'finish')).toHaveLength(1);
    } finally {
      stack.model.setOptions({ chunkDelayMs: 0 });
    }
  });
});

describe('harness chat --transport nats', () => {
  it('prints the reply of a one-shot message', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'harness-nats-cli-'));
    try {
      const env = cliEnvironment(join(scratch, 'config'), { HARNESS_ACCOUNT_URL: stack.accountUrl, HARNESS_AGENT_URL: stack.agentUrl });
      expect((await runCli(['account', 'create', '--username', 'nats-cli', '--description', 'cli'], env)).exitCode).toBe(0);
      const configFile = join(scratch, 'agent.json');
      await writeFile(configFile, JSON.stringify({ provider: stack.provider() }));
      expect((await runCli(['agent', 'put', 'echo', '--file', configFile], env)).exitCode).toBe(0);
      const result = await runCli(['chat', 'echo', '-m', 'hi over nats', '--transport', 'nats', '--conversation', 'from-cli'], env);
      expect(result).toMatchObject({ exitCode: 0, stdout: 'Echo: hi over nats\n' });
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
