import { readFileSync } from 'node:fs';
import type { UIMessageChunk } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { denyAllReason } from '../chat/chat-session.js';
import type { ConversationHistory } from '../chat/conversation-history.js';
import { profilesPath, saveProfile } from '../profiles.js';
import { startChatStub, type ChatStubOptions, type ChatStubReply } from '../test-support/chat-stub.js';
import { runInProcess } from '../test-support/run-in-process.js';
import type { RecordedRequest } from '../test-support/stub-service.js';
import { createTestContext } from '../test-support/test-context.js';
import { newConversationKey } from './chat.js';

const fixture = (name: string): UIMessageChunk[] =>
  JSON.parse(readFileSync(new URL(`../chat/fixtures/${name}.json`, import.meta.url), 'utf8')) as UIMessageChunk[];

let stub: Awaited<ReturnType<typeof startChatStub>> | undefined;

afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function setup(
  handler: (request: RecordedRequest, index: number) => ChatStubReply,
  options: { profile?: string; env?: Record<string, string>; conversations?: ChatStubOptions['conversations'] } = {},
) {
  stub = await startChatStub(handler, { conversations: options.conversations });
  const context = await createTestContext({ env: options.env });
  await saveProfile(profilesPath(context.env, context.homeDir), options.profile ?? 'default', {
    accountUrl: 'http://127.0.0.1:9',
    agentUrl: stub.url,
    accountId: 'acc_1',
    username: 'alice',
    secret: 'sk-chat',
  });
  return { context, service: stub };
}

const body = (request: RecordedRequest | undefined): { conversationKey: string; message: unknown } => JSON.parse(request?.body ?? '') as { conversationKey: string; message: unknown };

/** The ids the recorded approval-request fixture carries. */
const { approvalId: recordedApprovalId, toolCallId: recordedToolCallId } = fixture('approval-request').find((chunk) => chunk.type === 'tool-approval-request') as {
  approvalId: string;
  toolCallId: string;
};

/** A stored conversation whose last turn stopped at the recorded approval request. */
const waitingConversation: ConversationHistory = {
  conversationKey: 'c1',
  messages: [
    { role: 'user', content: 'search: dogs' },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: recordedToolCallId, toolName: 'alphaSearch', input: { query: 'dogs' } }, { type: 'tool-approval-request', approvalId: recordedApprovalId, toolCallId: recordedToolCallId }] },
  ],
  pendingApprovals: [{ approvalId: recordedApprovalId, toolCallId: recordedToolCallId, toolName: 'alphaSearch', input: { query: 'dogs' } }],
};

describe('harness chat -m', () => {
  it('prints a plain reply as it streams and exits 0, with a new conversation key', async () => {
    const { context, service } = await setup(() => ({ chunks: fixture('plain-reply') }));
    await runInProcess(context, ['chat', 'helper', '-m', 'hello there']);
    expect(context.output()).toBe('Echo: hello there\n');
    const request = service.requests[0];
    expect(request).toMatchObject({ method: 'POST', url: '/agents/helper/chat' });
    expect(request?.headers).toMatchObject({ authorization: 'Bearer sk-chat', accept: 'text/event-stream' });
    const sent = body(request);
    expect(sent).toEqual({ conversationKey: expect.stringMatching(/^cli-\d+-[0-9a-f]{6}$/), message: 'hello there' });
    expect(context.errors()).toBe(`conversation: ${sent.conversationKey} (continue with: harness chat helper --conversation ${sent.conversationKey})\n`);
  });

  it('continues a given conversation and prints tool lines on stderr', async () => {
    const { context, service } = await setup(() => ({ chunks: fixture('tool-call') }));
    await runInProcess(context, ['chat', 'helper', '--conversation', 'my chat', '-m', 'search: cats']);
    expect(body(service.requests[0]).conversationKey).toBe('my chat');
    expect(context.output()).toMatch(/^alphaSearch: \{"query":"cats".*\}\n$/);
    expect(context.errors()).toBe('⚙ alphaSearch {"query":"cats"} → 3 results\n');
  });

  it('with --approve-all answers the approval with one tool message and prints the continuation', async () => {
    const continuation: UIMessageChunk[] = [
      { type: 'start' },
      { type: 'tool-output-available', toolCallId: recordedToolCallId, output: { results: [1, 2, 3] } },
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', delta: 'Found three dogs.' },
      { type: 'text-end', id: '0' },
      { type: 'finish', messageMetadata: { status: 'completed' } },
    ];
    const { context, service } = await setup((_request, index) => ({ chunks: index === 0 ? fixture('approval-request') : continuation }));
    await runInProcess(context, ['chat', 'helper', '--conversation', 'c1', '-m', 'search: dogs', '--approve-all']);
    expect(service.requests).toHaveLength(2);
    expect(body(service.requests[1])).toEqual({
      conversationKey: 'c1',
      message: { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: recordedApprovalId, approved: true }] },
    });
    expect(context.output()).toBe('Found three dogs.\n');
    expect(context.errors()).toBe('⚙ alphaSearch {"query":"dogs"} → awaiting approval\n⚙ alphaSearch {"query":"dogs"} → 3 results\n');
  });

  it('with --deny-all denies with a reason and reports the turn as JSON', async () => {
    const { context, service } = await setup((_request, index) => ({ chunks: index === 0 ? fixture('approval-request') : fixture('approval-denied') }));
    await runInProcess(context, ['chat', 'helper', '--conversation', 'c1', '-m', 'search: dogs', '--deny-all', '--json']);
    expect(body(service.requests[1]).message).toEqual({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: recordedApprovalId, approved: false, reason: denyAllReason }] });
    const report = JSON.parse(context.output()) as Record<string, unknown>;
    expect(report).toEqual({
      conversationKey: 'c1',
      status: 'completed',
      text: 'alphaSearch: not now',
      toolCalls: [{ toolCallId: recordedToolCallId, toolName: 'alphaSearch', state: 'output-denied', input: { query: 'dogs' } }],
      approvals: [{ approvalId: recordedApprovalId, toolCallId: recordedToolCallId, toolName: 'alphaSearch', input: { query: 'dogs' }, approved: false, reason: denyAllReason }],
    });
    expect(context.errors()).toBe('');
  });

  it('without a policy and without a terminal, an approval request is an error that says how to answer it', async () => {
    const { context, service } = await setup(() => ({ chunks: fixture('approval-request') }));
    const run = runInProcess(context, ['chat', 'helper', '--conversation', 'c1', '-m', 'search: dogs']);
    await expect(run).rejects.toMatchObject({ exitCode: 1 });
    await expect(run).rejects.toThrow(
      `the agent is waiting for approval: Run alphaSearch {"query":"dogs"}? (approval ${recordedApprovalId}). It stays pending in conversation c1; answer it with ` +
        `\`harness async helper --conversation c1 --approve ${recordedApprovalId} --wait\` or \`harness async helper --conversation c1 --deny ${recordedApprovalId} --reason "..." --wait\``,
    );
    expect(service.requests).toHaveLength(1);
  });

  it('names the profile and the npx prefix in the commands it prints', async () => {
    const { context } = await setup(() => ({ chunks: fixture('approval-request') }), { profile: 'demo', env: { npm_command: 'exec' } });
    const run = runInProcess(context, ['--profile', 'demo', 'chat', 'helper', '-m', 'search: dogs']);
    await expect(run).rejects.toThrow(`answer it with \`npx harness --profile demo async helper --conversation `);
    const key = /^conversation: (cli-\d+-[0-9a-f]{6}) /.exec(context.errors().split('\n').at(-2) ?? '')?.[1];
    expect(context.errors()).toContain(`conversation: ${key} (continue with: npx harness --profile demo chat helper --conversation ${key})\n`);
  });

  it('quotes a conversation key with a space in the continue command', async () => {
    const { context } = await setup(() => ({ chunks: fixture('approval-request') }));
    await expect(runInProcess(context, ['chat', 'helper', '--conversation', 'my chat', '-m', 'search: dogs'])).rejects.toThrow(
      `\`harness async helper --conversation 'my chat' --approve ${recordedApprovalId} --wait\``,
    );
  });

  it('never denies silently: a message to a conversation waiting for approval is not sent without a way to answer it', async () => {
    const { context, service } = await setup(() => ({ chunks: fixture('plain-reply') }), { conversations: { c1: waitingConversation } });
    const run = runInProcess(context, ['chat', 'helper', '--conversation', 'c1', '-m', 'next question']);
    await expect(run).rejects.toMatchObject({ exitCode: 1 });
    await expect(run).rejects.toThrow(
      `conversation c1 is waiting for approval: Run alphaSearch {"query":"dogs"}? (approval ${recordedApprovalId}); a new message would deny it, so nothing was sent. ` +
        `Answer it with \`harness async helper --conversation c1 --approve ${recordedApprovalId} --wait\``,
    );
    expect(service.historyRequests).toHaveLength(1);
    expect(service.requests).toHaveLength(0);
  });

  it('with --approve-all, approves what the conversation waits for before sending the message', async () => {
    const continuation: UIMessageChunk[] = [
      { type: 'start' },
      { type: 'tool-output-available', toolCallId: recordedToolCallId, output: { results: [1, 2, 3] } },
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', delta: 'Found three dogs.' },
      { type: 'text-end', id: '0' },
      { type: 'finish', messageMetadata: { status: 'completed' } },
    ];
    const { context, service } = await setup((_request, index) => ({ chunks: index === 0 ? continuation : fixture('plain-reply') }), { conversations: { c1: waitingConversation } });
    await runInProcess(context, ['chat', 'helper', '--conversation', 'c1', '-m', 'hello there', '--approve-all', '--json']);
    expect(service.requests.map((request) => body(request).message)).toEqual([
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: recordedApprovalId, approved: true }] },
      'hello there',
    ]);
    expect(JSON.parse(context.output())).toMatchObject({
      conversationKey: 'c1',
      status: 'completed',
      text: 'Found three dogs.\nEcho: hello there',
      toolCalls: [{ toolCallId: recordedToolCallId, toolName: 'alphaSearch', state: 'output-available' }],
      approvals: [{ approvalId: recordedApprovalId, approved: true }],
    });
  });

  it('fails (exit 1) on an error chunk, after printing what came', async () => {
    const { context } = await setup(() => ({ chunks: fixture('model-error') }));
    const run = runInProcess(context, ['chat', 'helper', '--conversation', 'c1', '-m', 'fail: 500']);
    await expect(run).rejects.toMatchObject({ exitCode: 1 });
    await expect(run).rejects.toThrow(/^the turn failed: Failed after 3 attempts\. Last error: Scripted failure with status 500\.$/);
  });

  it('reports a failed turn in the JSON document too', async () => {
    const { context } = await setup(() => ({ chunks: fixture('model-error') }));
    await expect(runInProcess(context, ['chat', 'helper', '--conversation', 'c1', '-m', 'x', '--json'])).rejects.toMatchObject({ exitCode: 1 });
    expect(JSON.parse(context.output())).toEqual({ conversationKey: 'c1', status: 'failed', text: '', toolCalls: [], approvals: [] });
  });

  it("shows the service's error before streaming as one line", async () => {
    const { context } = await setup(() => ({ status: 502, json: { error: { code: 'upstream_error', message: 'The model failed.' } } }));
    await expect(runInProcess(context, ['chat', 'helper', '-m', 'hi'])).rejects.toThrow(/^The model failed\. \(upstream_error, HTTP 502\)$/);
    expect(context.output()).toBe('');
  });

  it('fails when the stream breaks off', async () => {
    const { context } = await setup(() => ({ chunks: fixture('plain-reply').slice(0, 5), done: false }));
    await expect(runInProcess(context, ['chat', 'helper', '-m', 'hi'])).rejects.toThrow('the agent service closed the chat stream before it finished');
    expect(context.output()).toBe('Echo: hello \n');
  });

  it('refuses usage mistakes before any request', async () => {
    const { context, service } = await setup(() => ({ chunks: [] }));
    await expect(runInProcess(context, ['chat', 'helper'])).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/needs a terminal; pass -m TEXT/) });
    await expect(runInProcess(context, ['chat', 'helper', '-m', '  '])).rejects.toMatchObject({ exitCode: 2 });
    await expect(runInProcess(context, ['chat', 'helper', '-m', 'x', '--conversation', 'a\u0007b'])).rejects.toMatchObject({ exitCode: 2 });
    await expect(runInProcess(context, ['chat', 'helper', '-m', 'x', '--approve-all', '--deny-all'])).rejects.toThrow(/cannot be used with option/);
    expect(service.requests).toHaveLength(0);
  });
});

describe('newConversationKey', () => {
  it('is cli-<time>-<random>', () => {
    expect(newConversationKey(1700000000000)).toMatch(/^cli-1700000000000-[0-9a-f]{6}$/);
    expect(newConversationKey()).not.toBe(newConversationKey());
  });
});
