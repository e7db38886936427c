import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolSet } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BubblewrapStatus, probeBubblewrap } from './bubblewrap-probe.js';
import { validateSandboxConfig } from './sandbox-config-schema.js';
import { defaultSandboxSettings } from './sandbox-settings.js';
import { callTool } from './test-support/call-tool.js';
import { buildWorkspaceTools } from './workspace-tools.js';

const noBubblewrap: BubblewrapStatus = { available: false, reason: 'not used in this test' };
const limits = validateSandboxConfig({ timeoutMs: 20_000 });
// These tests are about the tool wrappers: they run bash without bubblewrap, by the operator's opt-in.
const runtime = { settings: { ...defaultSandboxSettings, allowUnsandboxedBash: true } };
let bucket: string;

beforeEach(async () => {
  bucket = await mkdtemp(path.join(tmpdir(), 'workspace-tools-'));
  await mkdir(path.join(bucket, 'notes'));
  await writeFile(path.join(bucket, 'notes', 'todo.md'), 'buy milk\n');
});

afterEach(async () => {
  await rm(bucket, { recursive: true, force: true });
});

async function approvalOf(tools: ToolSet, name: string): Promise<unknown> {
  const needsApproval = tools[name]?.needsApproval;
  return typeof needsApproval === 'function' ? needsApproval({}, { toolCallId: 'call-1', messages: [], context: undefined }) : needsApproval;
}

describe('buildWorkspaceTools', () => {
  const base = { workspaceName: 'notes', limits, bubblewrap: noBubblewrap, prefixToolNames: false, runtime } as const;

  it('sets needsApproval from the permission mode', async () => {
    const tools = buildWorkspaceTools({ ...base, root: path.join(bucket, 'notes'), access: 'sandboxed', permissionMode: 'ask-writes' });
    expect(await approvalOf(tools, 'read')).toBe(false);
    expect(await approvalOf(tools, 'grep')).toBe(false);
    expect(await approvalOf(tools, 'write')).toBe(true);
    expect(await approvalOf(tools, 'bash')).toBe(true);
    const asking = buildWorkspaceTools({ ...base, root: path.join(bucket, 'notes'), access: 'direct-bucket', permissionMode: 'ask' });
    expect(Object.keys(asking)).toEqual(['read', 'glob']);
    expect(await approvalOf(asking, 'read')).toBe(true);
  });

  it('offers no write tool in a read-only workspace, even with a sandbox', () => {
    const tools = buildWorkspaceTools({ ...base, root: path.join(bucket, 'notes'), access: 'sandboxed', permissionMode: 'read-only' });
    expect(Object.keys(tools)).toEqual(['read', 'glob', 'grep']);
  });

  it('runs the tools in the workspace and returns failures as {error}', async () => {
    const tools = buildWorkspaceTools({ ...base, root: path.join(bucket, 'notes'), access: 'sandboxed', permissionMode: 'auto' });
    await expect(callTool(tools, 'read', { path: 'todo.md' })).resolves.toEqual({ path: 'todo.md', content: 'buy milk', totalLines: 1, truncated: false });
    await expect(callTool(tools, 'edit', { path: 'todo.md', oldText: 'milk', newText: 'bread' })).resolves.toEqual({ path: 'todo.md', replacements: 1 });
    expect(await readFile(path.join(bucket, 'notes', 'todo.md'), 'utf8')).toBe('buy bread\n');
    await expect(callTool(tools, 'read', { path: '../secret' })).resolves.toEqual({ error: '"../secret" leads outside the workspace; paths must stay inside the workspace root.' });
    await expect(callTool(tools, 'bash', { command: 'cat todo.md' })).resolves.toMatchObject({ exitCode: 0, stdout: 'buy bread\n' });
  });

  it('creates a sandboxed workspace folder on first use', async () => {
    const tools = buildWorkspaceTools({ ...base, root: path.join(bucket, 'fresh'), access: 'sandboxed', permissionMode: 'auto' });
    await expect(callTool(tools, 'read', { path: 'a.txt' })).resolves.toEqual({ error: 'The workspace folder does not exist yet; nothing has been written to it.' });
    await expect(callTool(tools, 'bash', { command: 'echo hi > a.txt' })).resolves.toMatchObject({ exitCode: 0 });
    await expect(callTool(tools, 'read', { path: 'a.txt' })).resolves.toMatchObject({ content: 'hi' });
  });

  it('reports a bash timeout as an error for the model', async () => {
    const tools = buildWorkspaceTools({ ...base, root: path.join(bucket, 'notes'), access: 'sandboxed', permissionMode: 'auto', limits: { ...limits, timeoutMs: 200 } });
    await expect(callTool(tools, 'bash', { command: 'sleep 100' })).resolves.toMatchObject({ error: 'The command timed out after 200 ms; it and every process it started were killed.', timedOut: true });
  });
});

describe('a workspace folder replaced by a symlink (bash in an enclosing workspace ran ln -s / link)', () => {
  const base = { workspaceName: 'inner', limits, prefixToolNames: false, access: 'sandboxed', permissionMode: 'auto' } as const;

  beforeEach(async () => {
    await mkdir(path.join(bucket, 'outer'));
    await symlink('/', path.join(bucket, 'outer', 'link'));
  });

  it('is refused by every tool, and nothing is made through it', async () => {
    const tools = buildWorkspaceTools({ ...base, root: { base: bucket, path: 'outer/link' }, bubblewrap: noBubblewrap });
    const refusal = { error: expect.stringContaining('goes through a symbolic link ("link")') as unknown };
    await expect(callTool(tools, 'read', { path: 'etc/hostname' })).resolves.toEqual(refusal);
    await expect(callTool(tools, 'glob', { pattern: 'etc/*' })).resolves.toEqual(refusal);
    await expect(callTool(tools, 'grep', { pattern: 'root', path: 'etc/passwd' })).resolves.toEqual(refusal);
    await expect(callTool(tools, 'write', { path: 'tmp/harness-escape-probe', content: 'x' })).resolves.toEqual(refusal);
    await expect(callTool(tools, 'bash', { command: 'pwd; id' })).resolves.toEqual(refusal);
    await expect(readFile('/tmp/harness-escape-probe')).rejects.toThrow();
  });

  it('under bubblewrap, bash gets the checked folder itself and no open fd of it', async (context) => {
    const bubblewrap = await probeBubblewrap();
    if (!bubblewrap.available) return context.skip(bubblewrap.reason);
    await mkdir(path.join(bucket, 'outer', 'real'));
    await writeFile(path.join(bucket, 'outer', 'real', 'mine.txt'), 'mine\n');
    const tools = buildWorkspaceTools({ ...base, root: { base: bucket, path: 'outer/real' }, bubblewrap });
    const result = (await callTool(tools, 'bash', { command: 'cat mine.txt; for fd in /proc/$$/fd/*; do echo "$fd $(readlink "$fd")"; done' })) as { stdout: string; exitCode: number };
    expect(result).toMatchObject({ exitCode: 0 });
    expect(result.stdout.startsWith('mine\n')).toBe(true);
    // No fd of a host folder: from one, `..` would climb out of the sandbox's mounts.
    expect(result.stdout).not.toContain(bucket);
    expect(result.stdout).not.toMatch(/ \/(?!dev\/null)/);
  });
});
