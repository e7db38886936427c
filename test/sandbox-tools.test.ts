import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectChunks } from './support/sse-chunks.js';
import { startSandboxStack, toolResults, type SandboxStack } from './support/sandbox-stack.js';

/**
 * Sandbox and workspace tools in real turns: they come only from `config.sandbox` and
 * `config.workspace`, and no external tool config is taken from there. The fixture model calls
 * the tools through the real OpenAI client; files land in the account's folder of the bucket.
 */

const script = (...lines: string[]) => lines.join('\n');
const call = (tool: string, input: unknown) => `call ${tool} ${JSON.stringify(input)}`;

describe('sandbox tools in turns', () => {
  let stack: SandboxStack;
  let secret: string;
  let accountFolder: string;
  let turn = 0;
  const key = () => `sandbox-${(turn += 1)}`;

  beforeAll(async () => {
    stack = await startSandboxStack();
    const account = await stack.createAccount('sandboxer');
    secret = account.secret;
    accountFolder = stack.accountFolder(account.accountId);
  });
  afterAll(async () => {
    await stack.close();
  });

  const put = async (agentId: string, config: Record<string, unknown>) => {
    const reply = await stack.putAgent(secret, agentId, { provider: stack.provider(), ...config });
    if (reply.status >= 300) throw new Error(JSON.stringify(reply.body));
  };

  it('bubblewrap is available on this machine (the isolation below runs under it)', () => {
    // Fails with the probe's reason rather than skipping: CI installs bubblewrap.
    expect(stack.bubblewrap).toMatchObject({ available: true });
  });

  it('no sandbox config gives no sandbox tool', async () => {
    await put('plain', {});
    const answer = await stack.chat(secret, 'plain', key(), call('bash', { command: 'id' }));
    expect(stack.lastOfferedTools()).toEqual([]);
    expect(answer.text).toContain('Tool bash is not available.');
  });

  it('a sandbox without a workspace gives only a stateless bash (a fresh folder per call)', async () => {
    await put('stateless', { sandbox: {} });
    const answer = await stack.chat(secret, 'stateless', key(), script(call('bash', { command: 'echo kept > note.txt && cat note.txt' }), `then ${call('bash', { command: 'ls -A; pwd' })}`, 'then done'));
    expect(stack.lastOfferedTools()).toEqual(['bash']);
    const [first, second] = toolResults(answer.messages);
    expect(first).toMatchObject({ toolName: 'bash', output: { exitCode: 0, stdout: 'kept\n', timedOut: false } });
    expect(second?.output).toMatchObject({ exitCode: 0, stdout: '/workspace\n' });
  });

  it('one workspace: plain tool names; write then read, and the file lands in the bucket', async () => {
    await put('writer', { sandbox: {}, workspace: { notes: { path: 'shared/notes', permissionMode: 'auto' } } });
    const answer = await stack.chat(
      secret,
      'writer',
      key(),
      script(call('write', { path: 'todo/today.md', content: 'buy milk\n' }), `then ${call('read', { path: 'todo/today.md' })}`, `then ${call('bash', { command: 'cat todo/today.md | tr a-z A-Z' })}`, 'then done'),
    );
    expect(stack.lastOfferedTools()).toEqual(['bash', 'edit', 'glob', 'grep', 'read', 'write']);
    const results = toolResults(answer.messages);
    expect(results.map((result) => result.toolName)).toEqual(['write', 'read', 'bash']);
    expect(results[0]?.output).toEqual({ path: 'todo/today.md', bytes: 9 });
    expect(results[1]?.output).toMatchObject({ path: 'todo/today.md', content: 'buy milk', totalLines: 1 });
    expect(results[2]?.output).toMatchObject({ exitCode: 0, stdout: 'BUY MILK\n' });
    expect(await readFile(path.join(accountFolder, 'shared/notes/todo/today.md'), 'utf8')).toBe('buy milk\n');
  });

  it('several workspaces: <workspace>__<tool> names, each scoped to its own folder', async () => {
    await mkdir(path.join(accountFolder, 'library'), { recursive: true });
    await writeFile(path.join(accountFolder, 'library', 'book.txt'), 'chapter one\n');
    await put('multi', {
      sandbox: {},
      workspace: {
        scratch: { path: 'scratch', permissionMode: 'auto' },
        library: { path: 'library', permissionMode: 'auto', sandbox: false },
        direct: { path: 'library', permissionMode: 'auto', sandbox: null },
      },
    });
    const answer = await stack.chat(
      secret,
      'multi',
      key(),
      script(call('scratch__write', { path: 'a.txt', content: 'alpha' }), call('library__read', { path: 'book.txt' }), `then ${call('scratch__read', { path: 'a.txt' })}`, call('direct__glob', { pattern: '*.txt' }), call('scratch__read', { path: 'book.txt' }), 'then done'),
    );
    expect(stack.lastOfferedTools()).toEqual([
      'direct__glob', 'direct__read', 'library__glob', 'library__read',
      'scratch__bash', 'scratch__edit', 'scratch__glob', 'scratch__grep', 'scratch__read', 'scratch__write',
    ]);
    const results = toolResults(answer.messages);
    expect(results).toEqual([
      { toolName: 'scratch__write', output: { path: 'a.txt', bytes: 5 } },
      { toolName: 'library__read', output: expect.objectContaining({ content: 'chapter one' }) as unknown },
      { toolName: 'scratch__read', output: expect.objectContaining({ content: 'alpha' }) as unknown },
      { toolName: 'direct__glob', output: { files: ['book.txt'], truncated: false } },
      { toolName: 'scratch__read', output: { error: '"book.txt" does not exist.' } },
    ]);
  });

  it('a workspace without a sandbox gives only read and glob, and a write attempt is refused', async () => {
    await put('viewer', { workspace: { library: { path: 'library', permissionMode: 'auto' } } });
    const answer = await stack.chat(secret, 'viewer', key(), script(call('write', { path: 'book.txt', content: 'overwritten' }), call('read', { path: 'book.txt' }), 'then done'));
    expect(stack.lastOfferedTools()).toEqual(['glob', 'read']);
    expect(answer.text).toContain('Tool write is not available.');
    expect(await readFile(path.join(accountFolder, 'library', 'book.txt'), 'utf8')).toBe('chapter one\n');
  });

  it('a read-only workspace with a sandbox offers no write, edit or bash', async () => {
    await put('reader', { sandbox: {}, workspace: { library: { path: 'library', permissionMode: 'read-only' } } });
    const answer = await stack.chat(secret, 'reader', key(), script(call('edit', { path: 'book.txt', oldText: 'one', newText: 'two' }), call('grep', { pattern: 'chapter' }), 'then done'));
    expect(stack.lastOfferedTools()).toEqual(['glob', 'grep', 'read']);
    expect(answer.text).toContain('Tool edit is not available.');
    expect(toolResults(answer.messages)[0]?.output).toMatchObject({ matches: [{ path: 'book.txt', line: 1, text: 'chapter one' }] });
    expect(await readFile(path.join(accountFolder, 'library', 'book.txt'), 'utf8')).toBe('chapter one\n');
  });

  it('paths never escape a workspace: "..", absolute paths and symlinks give tool errors', async () => {
    await mkdir(path.join(accountFolder, 'jail'), { recursive: true });
    await writeFile(path.join(accountFolder, 'outside.txt'), 'secret\n');
    await symlink(path.join(accountFolder, 'outside.txt'), path.join(accountFolder, 'jail', 'link.txt'));
    await symlink('/etc', path.join(accountFolder, 'jail', 'etc'));
    await put('jailed', { sandbox: {}, workspace: { jail: { path: 'jail', permissionMode: 'auto' } } });
    const answer = await stack.chat(
      secret,
      'jailed',
      key(),
      script(
        call('read', { path: '../outside.txt' }),
        call('read', { path: '/etc/passwd' }),
        call('read', { path: 'link.txt' }),
        call('write', { path: 'etc/evil.conf', content: 'x' }),
        call('glob', { pattern: '../*' }),
        'then done',
      ),
    );
    const errors = toolResults(answer.messages).map((result) => (result.output as { error?: string }).error);
    expect(errors).toEqual([
      expect.stringContaining('leads outside the workspace'),
      expect.stringContaining('is an absolute path'),
      expect.stringContaining('symbolic link that leads outside'),
      expect.stringContaining('symbolic link that leads outside'),
      expect.stringContaining('..'),
    ]);
    expect(answer.status).toBe('completed');
    expect(answer.text).not.toContain('secret');
  });

  it('under bubblewrap, bash sees neither the data folder nor /root, and has no network', async () => {
    const answer = await stack.chat(
      secret,
      'jailed',
      key(),
      script(
        call('bash', { command: `ls ${stack.dataDir}/tables` }),
        call('bash', { command: 'ls /root' }),
        call('bash', { command: 'cat link.txt' }),
        call('bash', { command: `exec 3<>/dev/tcp/${new URL(stack.agentUrl).hostname}/${new URL(stack.agentUrl).port} && echo connected` }),
        'then done',
      ),
    );
    const outputs = toolResults(answer.messages).map((result) => result.output as { exitCode: number; stdout: string });
    expect(outputs).toHaveLength(4);
    for (const output of outputs) {
      expect(output.exitCode).not.toBe(0);
      expect(output.stdout).not.toContain('connected');
      expect(output.stdout).not.toContain('secret');
    }
  });

  it('a bash call past its timeout is killed with everything it started, and the turn goes on', async () => {
    await put('impatient', { sandbox: { timeoutMs: 500 } });
    const answer = await stack.chat(secret, 'impatient', key(), script(call('bash', { command: 'sleep 30 & sleep 30; echo never' }), 'then done'));
    const [result] = toolResults(answer.messages);
    expect(result?.output).toMatchObject({ timedOut: true, exitCode: null, error: 'The command timed out after 500 ms; it and every process it started were killed.' });
    expect((result?.output as { stdout: string }).stdout).not.toContain('never');
    expect(answer.status).toBe('completed');
  });

  it("approvals follow the workspace's permissionMode: a write in an ask-writes workspace streams a tool-approval-request, a read does not", async () => {
    await put('careful', { sandbox: {}, workspace: { notes: { path: 'careful', permissionMode: 'ask-writes' } } });
    const conversationKey = key();
    const response = await stack.chatStream(secret, 'careful', { conversationKey, message: script(call('write', { path: 'plan.md', content: 'step 1' }), call('glob', { pattern: '**/*' }), 'then done') });
    const chunks = await collectChunks(response);
    const requests = chunks.filter((chunk) => chunk.type === 'tool-approval-request');
    expect(requests).toHaveLength(1);
    const writeCall = chunks.find((chunk) => chunk.type === 'tool-input-available' && chunk.toolName === 'write') as { toolCallId: string } | undefined;
    expect(requests[0]).toMatchObject({ toolCallId: writeCall?.toolCallId });
    expect(chunks.some((chunk) => chunk.type === 'tool-output-available')).toBe(true);
    await expect(readFile(path.join(accountFolder, 'careful', 'plan.md'), 'utf8')).rejects.toThrow();

    const approvalId = (requests[0] as { approvalId: string }).approvalId;
    const approved = await stack.chatStream(secret, 'careful', { conversationKey, message: { role: 'tool', content: [{ type: 'tool-approval-response', approvalId, approved: true }] } });
    await collectChunks(approved);
    expect(await readFile(path.join(accountFolder, 'careful', 'plan.md'), 'utf8')).toBe('step 1');
  });

  it('external tool config and the shapes: a bad config is a 400 naming its path', async () => {
    const refused = async (config: Record<string, unknown>) => {
      const reply = await stack.putAgent(secret, 'refused', config);
      expect(reply.status).toBe(400);
      return (reply.body as { error: { message: string } }).error.message;
    };
    expect(await refused({ workspace: { notes: { path: 'notes', permissionMode: 'auto', apiKey: 'tvly-0123456789abcdef' } } })).toMatch(/^config\.workspace\.notes\.apiKey is not allowed: external tool configuration belongs only under config\.tools/);
    expect(await refused({ workspace: { alphaSearch: { maxResults: 3 } } })).toMatch(/^config\.workspace\.alphaSearch is not allowed: external tool configuration/);
    expect(await refused({ skills: { review: { description: 'd', instructions: 'i', tools: { alphaSearch: {} } } } })).toMatch(/^config\.skills\.review\.tools is not allowed: external tool/);
    expect(await refused({ subagent: { agents: {}, alphaExtract: { apiKey: 'k' } } })).toMatch(/^config\.subagent\.alphaExtract is not allowed: external tool/);
    expect(await refused({ subagent: { agents: { helper: { description: 'd', needsApproval: true } } } })).toMatch(/^config\.subagent\.agents\.helper\.needsApproval is not allowed: external tool/);
    expect(await refused({ tools: { bash: {} } })).toContain('bash comes only from config.sandbox and config.workspace');
    expect(await refused({ tools: { run_subagent: {} } })).toContain('run_subagent comes only from config.subagent');
    expect(await refused({ sandbox: { timeoutMs: 5 } })).toBe('config.sandbox.timeoutMs must be an integer from 100 to 600000');
    expect(await refused({ workspace: { notes: { path: '../up', permissionMode: 'auto' } } })).toContain('config.workspace.notes.path must be a relative path');
    expect(await refused({ workspace: { notes: { path: 'notes', permissionMode: 'sometimes' } } })).toContain('config.workspace.notes.permissionMode must be one of');
    expect(await refused({ skills: { style: { description: 'd', file: '/etc/passwd' } } })).toContain('config.skills.style.file must be a relative path');
  });
});
