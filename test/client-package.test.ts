import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatStack, type ChatStack } from './support/chat-stack.js';

/**
 * `harness/client` as a user's plain script imports it: a `.mjs` file inside the repository,
 * run by `node`, resolves the package's own name through `exports` to the built client
 * (`npm run build`, which `prepare` runs at `npm ci`). The script signs up, runs a chat
 * (JSON and streamed), an async request it waits for, and a cron job it creates, lists and
 * deletes, against the real services on the fixture model.
 */
const run = promisify(execFile);
const repositoryRoot = resolve(import.meta.dirname, '..');

const script = `
import { createHarnessClient, HarnessApiError, HarnessConnectionError } from 'harness/client';

const { accountUrl, agentUrl, provider } = JSON.parse(process.env.HARNESS_CLIENT_TEST);
const anonymous = createHarnessClient({ accountUrl, agentUrl });
const account = await anonymous.accounts.signup({ username: 'script-user', description: 'a plain script' });
const client = anonymous.withSecret(account.secret);
await client.agents.put('echo', { provider });

const answer = await client.chat.send('echo', { conversationKey: 'script-chat', message: 'hello from a script' });

const stream = await client.chat.stream('echo', { conversationKey: 'script-stream', message: 'streamed' });
const chunkTypes = [];
let streamedText = '';
for await (const chunk of stream) {
  chunkTypes.push(chunk.type);
  if (chunk.type === 'text-delta') streamedText += chunk.delta;
}

const submitted = await client.async.submit('echo', { conversationKey: 'script-async', message: 'in the background' });
const settled = await client.async.wait(submitted.eventId, { intervalMilliseconds: 50, timeoutMilliseconds: 20000 });

const job = await client.cronJobs.create({ name: 'nightly', agentId: 'echo', conversationKey: 'script-cron', prompt: 'Report.', scheduleExpression: 'cron(0 3 * * ? *)' });
const paused = await client.cronJobs.pause(job.cronJobId);
const listed = (await client.cronJobs.list()).map((entry) => entry.cronJobId);
await client.cronJobs.delete(job.cronJobId);
const remaining = (await client.cronJobs.list()).length;

let missing;
try {
  await client.agents.get('nobody');
} catch (error) {
  missing = { isApiError: error instanceof HarnessApiError, status: error.status, code: error.code };
}
let unreachable;
try {
  await createHarnessClient({ baseUrl: 'http://127.0.0.1:1' }).accounts.me();
} catch (error) {
  unreachable = { isConnectionError: error instanceof HarnessConnectionError, service: error.service };
}

console.log(JSON.stringify({
  chat: { status: answer.status, text: answer.text, eventId: answer.eventId },
  stream: { eventId: stream.eventId, lastChunkId: stream.lastChunkId, first: chunkTypes[0], last: chunkTypes.at(-1), text: streamedText },
  async: { eventId: submitted.eventId, status: settled.status, text: settled.result?.text },
  cron: { id: job.cronJobId, paused: paused.status, listed, remaining },
  missing,
  unreachable,
}));
`;

describe('harness/client from a plain script', () => {
  let stack: ChatStack;
  let folder: string;

  beforeAll(async () => {
    // The client as `npm run build` makes it, so the script runs what a clean clone would.
    await run(process.execPath, [join(repositoryRoot, 'node_modules/typescript/bin/tsc'), '-p', 'client/tsconfig.json'], { cwd: repositoryRoot });
    stack = await startChatStack();
    // Inside the repository (in its ignored scratch folder): Node resolves `harness/...` from the nearest package.json named harness.
    await mkdir(join(repositoryRoot, '.scratch'), { recursive: true });
    folder = await mkdtemp(join(repositoryRoot, '.scratch', 'client-package-'));
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('runs a chat, an async request and a cron job', async () => {
    const file = join(folder, 'use-client.mjs');
    await writeFile(file, script);
    const environment = { ...process.env, HARNESS_CLIENT_TEST: JSON.stringify({ accountUrl: stack.accountUrl, agentUrl: stack.agentUrl, provider: stack.provider() }) };
    const { stdout } = await run(process.execPath, [file], { cwd: folder, env: environment });
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!);

    expect(result.chat).toMatchObject({ status: 'completed', text: 'Echo: hello from a script' });
    expect(result.chat.eventId).toEqual(expect.any(String));
    expect(result.stream).toMatchObject({ first: 'start', last: 'finish', text: 'Echo: streamed' });
    expect(result.stream.eventId).toEqual(expect.any(String));
    expect(result.stream.lastChunkId).toMatch(/^.+:\d+$/);
    expect(result.async).toMatchObject({ status: 'completed', text: 'Echo: in the background' });
    expect(result.cron.paused).toBe('paused');
    expect(result.cron.listed).toContain(result.cron.id);
    expect(result.cron.remaining).toBe(0);
    expect(result.missing).toEqual({ isApiError: true, status: 404, code: 'not_found' });
    expect(result.unreachable).toEqual({ isConnectionError: true, service: 'account' });
  }, 60_000);

  it('imports from a TypeScript script run with tsx', async () => {
    const file = join(folder, 'types.ts');
    await writeFile(
      file,
      `import { createHarnessClient, type CronJob, type HarnessUIMessage } from 'harness/client';\nconst job: Pick<CronJob, 'status'> = { status: 'active' };\nconst message: HarnessUIMessage = { id: 'm', role: 'user', parts: [] };\nconsole.log(typeof createHarnessClient, job.status, message.role);\n`,
    );
    const { stdout } = await run(process.execPath, [join(repositoryRoot, 'node_modules/tsx/dist/cli.mjs'), file], { cwd: folder });
    expect(stdout.trim()).toBe('function active user');
  }, 60_000);
});
