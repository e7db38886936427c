import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedSecretsFileName } from '../server/core/secrets/runtime-secrets.js';
import { startSandboxStack, toolResults, type SandboxStack } from './support/sandbox-stack.js';

/**
 * A workspace cannot escape the bucket: bash in a workspace `outer` (path `w`) runs
 * `ln -s / link`, which turns the folder of a workspace `inner` (path `w/link`) into a link to
 * the host's `/`. From then on inner's tools and the file routes must refuse, not read the
 * host (the data folder's generated secrets included), and bash must not run there.
 */

const call = (tool: string, input: unknown) => `call ${tool} ${JSON.stringify(input)}`;
const marker = 'generated-secret-marker-7f3a9c';

describe('workspace escape through a symlinked workspace folder', () => {
  let stack: SandboxStack;
  let secret: string;
  let secretFile: string;

  beforeAll(async () => {
    stack = await startSandboxStack();
    ({ secret } = await stack.createAccount('escaper'));
    // What `serve` keeps in the data folder; the chat stack passes its secrets in memory.
    secretFile = path.join(stack.dataDir, generatedSecretsFileName);
    await writeFile(secretFile, JSON.stringify({ adminSecret: marker }), { mode: 0o600 });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('one agent cannot have a workspace inside another of its workspaces (400 naming the field)', async () => {
    const reply = await stack.putAgent(secret, 'nested', {
      provider: stack.provider(),
      sandbox: {},
      workspace: { outer: { path: 'w', permissionMode: 'auto' }, inner: { path: 'w/link', permissionMode: 'auto' } },
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: { code: 'invalid_request', message: expect.stringContaining('config.workspace.inner.path') as unknown } });
  });

  it('after outer__bash runs `ln -s / link`, inner__read, inner__glob, inner__bash and the file routes read nothing outside', async () => {
    // Two agents of one account may still share folders (a subagent works in its parent's
    // workspace), so the nesting reaches the tools this way.
    const outerAgent = await stack.putAgent(secret, 'builder', {
      provider: stack.provider(),
      sandbox: {},
      workspace: { outer: { path: 'w', permissionMode: 'auto' }, scratch: { path: 'scratch', permissionMode: 'auto' } },
    });
    expect(outerAgent.status).toBe(201);
    const innerAgent = await stack.putAgent(secret, 'reader', {
      provider: stack.provider(),
      sandbox: {},
      workspace: { inner: { path: 'w/link', permissionMode: 'auto' }, notes: { path: 'notes', permissionMode: 'auto' } },
    });
    expect(innerAgent.status).toBe(201);

    const linked = await stack.chat(secret, 'builder', 'escape-1', `${call('outer__bash', { command: 'ln -s / link && ls -l link' })}\nthen done`);
    expect(toolResults(linked.messages)[0]?.output).toMatchObject({ exitCode: 0 });

    const hostPath = secretFile.slice(1);
    const answer = await stack.chat(
      secret,
      'reader',
      'escape-2',
      [
        call('inner__read', { path: hostPath }),
        call('inner__glob', { pattern: `${path.dirname(hostPath)}/*` }),
        call('inner__grep', { pattern: 'adminSecret', path: path.dirname(hostPath) }),
        call('inner__bash', { command: `cat ${secretFile}; cat /${hostPath}; cat ${hostPath}; id` }),
        call('inner__write', { path: 'tmp/escape-probe.txt', content: 'written outside' }),
        'then done',
      ].join('\n'),
    );
    const outputs = toolResults(answer.messages).map((result) => result.output as { error?: string });
    expect(outputs).toHaveLength(5);
    for (const output of outputs) {
      expect(output.error).toContain('goes through a symbolic link');
      expect(JSON.stringify(output)).not.toContain(marker);
    }
    expect(JSON.stringify(answer)).not.toContain(marker);

    const filesUrl = `${stack.accountUrl}/accounts/me/agents/reader/workspaces/inner/files`;
    const auth = { authorization: `Bearer ${secret}` };
    const download = await fetch(`${filesUrl}/${hostPath}`, { headers: auth });
    expect(download.status).toBe(400);
    expect(await download.text()).not.toContain(marker);
    const listing = await fetch(`${filesUrl}?path=${encodeURIComponent(path.dirname(hostPath))}`, { headers: auth });
    expect(listing.status).toBe(400);
    expect(await listing.text()).not.toContain(marker);
    const upload = await fetch(`${filesUrl}/tmp/escape-probe.txt`, { method: 'PUT', headers: { ...auth, 'content-type': 'application/octet-stream' }, body: 'x' });
    expect(upload.status).toBe(400);
    await expect(import('node:fs/promises').then(({ readFile }) => readFile('/tmp/escape-probe.txt'))).rejects.toThrow();
  });
});
