import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profilesPath, saveProfile } from '../cli/profiles.js';
import { runInProcess } from '../cli/test-support/run-in-process.js';
import { createTestContext, type TestContext } from '../cli/test-support/test-context.js';
import { startSandboxStack, toolResults, type SandboxStack } from './support/sandbox-stack.js';

/** The workspace file routes of the account service, and `harness workspace push|pull|ls` against them. */

describe('workspace files over HTTP and the CLI', () => {
  let stack: SandboxStack;
  let secret: string;
  let accountId: string;
  let local: string;
  const filesUrl = (agentId: string, workspace: string, rest = '') => `${stack.accountUrl}/accounts/me/agents/${agentId}/workspaces/${workspace}/files${rest}`;
  const auth = () => ({ authorization: `Bearer ${secret}` });
  const upload = (url: string, body: Buffer | string, contentType = 'application/octet-stream') =>
    fetch(url, { method: 'PUT', headers: { ...auth(), 'content-type': contentType }, body });

  beforeAll(async () => {
    stack = await startSandboxStack();
    ({ secret, accountId } = await stack.createAccount('filer'));
    const reply = await stack.putAgent(secret, 'keeper', {
      provider: stack.provider(),
      sandbox: {},
      workspace: { docs: { path: 'team/docs', permissionMode: 'auto' }, archive: { path: 'archive', permissionMode: 'read-only', sandbox: false } },
    });
    expect(reply.status).toBe(201);
    local = await mkdtemp(path.join(tmpdir(), 'harness-workspace-cli-'));
  });
  afterAll(async () => {
    await stack.close();
    await rm(local, { recursive: true, force: true });
  });

  it('uploads raw bytes, lists, downloads and deletes', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252]);
    const put = await upload(filesUrl('keeper', 'docs', '/images/logo.bin'), bytes);
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ path: 'images/logo.bin', bytes: 6 });
    expect(await readFile(path.join(stack.accountFolder(accountId), 'team/docs/images/logo.bin'))).toEqual(bytes);
    expect((await upload(filesUrl('keeper', 'docs', '/readme.md'), '# Docs\n')).status).toBe(200);

    const listed = await fetch(filesUrl('keeper', 'docs'), { headers: auth() });
    expect(listed.status).toBe(200);
    const listing = (await listed.json()) as { files: { path: string; size: number }[]; truncated: boolean };
    expect(listing).toMatchObject({ agentId: 'keeper', workspace: 'docs', path: '.', truncated: false });
    expect(listing.files.map(({ path: file, size }) => ({ path: file, size }))).toEqual([
      { path: 'images/logo.bin', size: 6 },
      { path: 'readme.md', size: 7 },
    ]);
    const under = (await (await fetch(filesUrl('keeper', 'docs', '?path=images'), { headers: auth() })).json()) as { files: { path: string }[] };
    expect(under.files.map((file) => file.path)).toEqual(['images/logo.bin']);

    const downloaded = await fetch(filesUrl('keeper', 'docs', '/images/logo.bin'), { headers: auth() });
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await downloaded.arrayBuffer())).toEqual(bytes);

    expect((await fetch(filesUrl('keeper', 'docs', '/images'), { method: 'DELETE', headers: auth() })).status).toBe(204);
    expect((await fetch(filesUrl('keeper', 'docs', '/images/logo.bin'), { headers: auth() })).status).toBe(404);
  });

  it('the owner may fill a read-only workspace, which the model then reads', async () => {
    expect((await upload(filesUrl('keeper', 'archive', '/2024/report.txt'), 'all good\n')).status).toBe(200);
    const answer = await stack.chat(secret, 'keeper', 'archive-read', 'call archive__read {"path":"2024/report.txt"}\nthen done');
    expect(toolResults(answer.messages)[0]?.output).toMatchObject({ content: 'all good' });
  });

  it('refuses escapes (400), unknown agents and workspaces (404), other accounts (404), no bearer (401), other media types (415)', async () => {
    const outside = path.join(stack.accountFolder(accountId), 'outside.txt');
    await writeFile(outside, 'not yours\n');
    await mkdir(path.join(stack.accountFolder(accountId), 'team/docs'), { recursive: true });
    await symlink(outside, path.join(stack.accountFolder(accountId), 'team/docs/link.txt'));

    const escape = await fetch(filesUrl('keeper', 'docs', '/..%2Foutside.txt'), { headers: auth() });
    expect(escape.status).toBe(400);
    expect(((await escape.json()) as { error: { message: string } }).error.message).toContain('leads outside the workspace');
    expect((await fetch(filesUrl('keeper', 'docs', '/link.txt'), { headers: auth() })).status).toBe(400);
    expect((await upload(filesUrl('keeper', 'docs', '/link.txt'), 'overwrite')).status).toBe(400);
    expect(await readFile(outside, 'utf8')).toBe('not yours\n');
    expect((await upload(filesUrl('keeper', 'docs', '/%2Fetc%2Fpasswd'), 'x')).status).toBe(400);
    expect((await fetch(filesUrl('keeper', 'docs', '?path=..'), { headers: auth() })).status).toBe(400);

    expect((await fetch(filesUrl('ghost', 'docs'), { headers: auth() })).status).toBe(404);
    expect((await fetch(filesUrl('keeper', 'nowhere'), { headers: auth() })).status).toBe(404);
    const stranger = await stack.createAccount('stranger');
    const foreign = await fetch(filesUrl('keeper', 'docs', '/readme.md'), { headers: { authorization: `Bearer ${stranger.secret}` } });
    expect(foreign.status).toBe(404);
    expect((await fetch(filesUrl('keeper', 'docs'))).status).toBe(401);
    const wrongType = await upload(filesUrl('keeper', 'docs', '/a.json'), '{}', 'application/json');
    expect(wrongType.status).toBe(415);
    expect(await wrongType.json()).toEqual({ error: { code: 'unsupported_media_type', message: 'Send the file as the raw body with Content-Type: application/octet-stream.' } });
  });

  describe('harness workspace', () => {
    let context: TestContext;

    beforeAll(async () => {
      context = await createTestContext();
      await saveProfile(profilesPath(context.env, context.homeDir), 'default', { accountUrl: stack.accountUrl, agentUrl: stack.agentUrl, accountId, username: 'filer', secret });
    });

    it('push uploads files and folders (like cp -r), ls lists them, pull downloads them with their paths', async () => {
      const source = path.join(local, 'source');
      await mkdir(path.join(source, 'site', 'css'), { recursive: true });
      await writeFile(path.join(source, 'site', 'index.html'), '<h1>hi</h1>');
      await writeFile(path.join(source, 'site', 'css', 'main.css'), 'body{}');
      await writeFile(path.join(source, 'notes.txt'), 'remember');

      await runInProcess(context, ['workspace', 'push', 'keeper', 'docs', path.join(source, 'site'), path.join(source, 'notes.txt'), '--to', 'upload']);
      expect(context.output()).toBe('pushed upload/site/css/main.css (6 bytes)\npushed upload/site/index.html (11 bytes)\npushed upload/notes.txt (8 bytes)\n3 files, 25 bytes.\n');

      const listContext = await createTestContext({ env: context.env as Record<string, string> });
      await runInProcess(listContext, ['workspace', 'ls', 'keeper', 'docs', 'upload']);
      expect(listContext.output().split('\n').map((line) => line.split(/\s+/).slice(0, 2).join(' '))).toEqual([
        'PATH SIZE', 'upload/notes.txt 8', 'upload/site/css/main.css 6', 'upload/site/index.html 11', '',
      ]);

      const out = path.join(local, 'out');
      const pullContext = await createTestContext({ env: context.env as Record<string, string> });
      await runInProcess(pullContext, ['workspace', 'pull', 'keeper', 'docs', 'upload/site', '--out', out, '--json']);
      const pulled = JSON.parse(pullContext.output()) as { files: { path: string; bytes: number }[] };
      expect(pulled.files.map((file) => file.path)).toEqual(['upload/site/css/main.css', 'upload/site/index.html']);
      expect(await readFile(path.join(out, 'upload/site/index.html'), 'utf8')).toBe('<h1>hi</h1>');
      expect(await readFile(path.join(out, 'upload/site/css/main.css'), 'utf8')).toBe('body{}');
    });

    it('the model sees what was pushed, and pull brings back what the model wrote', async () => {
      const answer = await stack.chat(secret, 'keeper', 'cli-roundtrip', 'call docs__read {"path":"upload/notes.txt"}\nthen call docs__write {"path":"reply.txt","content":"noted"}\nthen done');
      expect(toolResults(answer.messages)[0]?.output).toMatchObject({ content: 'remember' });
      const out = path.join(local, 'reply');
      const pullContext = await createTestContext({ env: context.env as Record<string, string> });
      await runInProcess(pullContext, ['workspace', 'pull', 'keeper', 'docs', 'reply.txt', '--out', out]);
      expect(await readFile(path.join(out, 'reply.txt'), 'utf8')).toBe('noted');
    });

    it('reports the service refusal for an unknown workspace', async () => {
      const failing = await createTestContext({ env: context.env as Record<string, string> });
      await expect(runInProcess(failing, ['workspace', 'ls', 'keeper', 'nowhere'])).rejects.toThrow('Agent "keeper" has no workspace "nowhere". (not_found, HTTP 404)');
    });
  });
});
