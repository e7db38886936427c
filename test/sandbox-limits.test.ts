import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultSandboxSettings } from '../server/core/sandbox/sandbox-settings.js';
import { startSandboxStack, toolResults, type SandboxStack } from './support/sandbox-stack.js';

/**
 * What an account's bash cannot reach or consume, through real turns: the service's
 * environment, the host without bubblewrap, and more disk than its quota.
 */

const script = (...lines: string[]) => lines.join('\n');
const call = (tool: string, input: unknown) => `call ${tool} ${JSON.stringify(input)}`;
const serviceVariables = { HARNESS_ADMIN_SECRET: 'admin-secret-in-the-service-env-0123', ALPHA_API_KEY: 'tvly-service-key-0123456789', GIT_AUTHOR_NAME: 'Ada Lovelace' };

describe('bash and the service environment', () => {
  let stack: SandboxStack;
  let secret: string;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    for (const [name, value] of Object.entries(serviceVariables)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    // The operator lets GIT_AUTHOR_NAME through, and nothing else.
    stack = await startSandboxStack({ sandboxSettings: { ...defaultSandboxSettings, passEnvironment: ['GIT_AUTHOR_NAME'] } });
    ({ secret } = await stack.createAccount('environment'));
  });
  afterAll(async () => {
    await stack.close();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('refuses a config that names a HARNESS_* or NATS_* variable, naming the entry', async () => {
    const reply = await stack.putAgent(secret, 'greedy', { provider: stack.provider(), sandbox: { environment: ['GIT_AUTHOR_NAME', 'HARNESS_ADMIN_SECRET'] } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: { code: 'invalid_request', message: 'config.sandbox.environment.1 names a service variable; HARNESS_* and NATS_* are never passed to bash' } });
  });

  it('passes only the names the operator allows: env shows neither the admin secret nor the search key', async () => {
    const reply = await stack.putAgent(secret, 'curious', { provider: stack.provider(), sandbox: { environment: ['ALPHA_API_KEY', 'GIT_AUTHOR_NAME'] } });
    expect(reply.status).toBe(201);
    const answer = await stack.chat(secret, 'curious', 'env-1', script(call('bash', { command: 'env' }), 'then done'));
    const output = toolResults(answer.messages)[0]?.output as { stdout: string };
    expect(output.stdout).toContain('GIT_AUTHOR_NAME=Ada Lovelace');
    expect(output.stdout).not.toContain(serviceVariables.ALPHA_API_KEY);
    expect(output.stdout).not.toContain(serviceVariables.HARNESS_ADMIN_SECRET);
    expect(output.stdout).not.toMatch(/^(HARNESS|NATS|ALPHA)_/m);
  });
});

describe('bash without bubblewrap', () => {
  let stack: SandboxStack;
  let secret: string;
  let accountFolder: string;

  beforeAll(async () => {
    stack = await startSandboxStack({ bubblewrap: { available: false, reason: 'bwrap was not found on PATH (Debian package: bubblewrap)' } });
    const account = await stack.createAccount('unconfined');
    secret = account.secret;
    accountFolder = stack.accountFolder(account.accountId);
  });
  afterAll(async () => {
    await stack.close();
  });

  it('answers the model with a tool error saying how to install bubblewrap, and runs nothing', async () => {
    await stack.putAgent(secret, 'shell', { provider: stack.provider(), sandbox: {}, workspace: { notes: { path: 'notes', permissionMode: 'auto' } } });
    const answer = await stack.chat(secret, 'shell', 'nobwrap-1', script(call('bash', { command: `cat ${stack.dataDir}/tables/* > leaked.txt` }), `then ${call('write', { path: 'kept.md', content: 'file tools still work\n' })}`, 'then done'));
    const [bash, write] = toolResults(answer.messages);
    expect(bash?.output).toEqual({ error: 'bash is unavailable: it runs only inside the bubblewrap sandbox, and bwrap was not found on PATH (Debian package: bubblewrap). The operator can install it with "apt-get install bubblewrap" and restart the service.' });
    expect(existsSync(path.join(accountFolder, 'notes', 'leaked.txt'))).toBe(false);
    // The file tools run in the service, confined by path checks, not by bubblewrap: they stay.
    expect(write?.output).toEqual({ path: 'kept.md', bytes: 22 });
    expect(answer.status).toBe('completed');
  });
});

describe('the disk quota', () => {
  let stack: SandboxStack;
  let secret: string;
  const quotaBytes = 64 * 1024;

  beforeAll(async () => {
    stack = await startSandboxStack({ sandboxSettings: { ...defaultSandboxSettings, diskQuotaBytes: quotaBytes } });
    ({ secret } = await stack.createAccount('hoarder'));
    await stack.putAgent(secret, 'keeper', { provider: stack.provider(), sandbox: {}, workspace: { docs: { path: 'docs', permissionMode: 'auto' } } });
  });
  afterAll(async () => {
    await stack.close();
  });
  afterEach(async () => {
    await fetch(`${stack.accountUrl}/accounts/me/agents/keeper/workspaces/docs/files/big.bin`, { method: 'DELETE', headers: { authorization: `Bearer ${secret}` } });
  });

  it('refuses an upload past the quota with a 413 naming it', async () => {
    const upload = (bytes: number) =>
      fetch(`${stack.accountUrl}/accounts/me/agents/keeper/workspaces/docs/files/big.bin`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/octet-stream' },
        body: Buffer.alloc(bytes, 7),
      });
    expect((await upload(30 * 1024)).status).toBe(200);
    const refused = await upload(100 * 1024);
    expect(refused.status).toBe(413);
    expect(await refused.json()).toEqual({ error: { code: 'payload_too_large', message: "This 102400-byte upload would take the account's files past its disk quota of 64 KiB; delete files to make room." } });
  });

  it('refuses the write tool past the quota and kills bash when its files go past it', async () => {
    const fill = 'for i in $(seq 1 200); do head -c 16384 /dev/urandom > part-$i; sleep 0.05; done; echo finished';
    const answer = await stack.chat(secret, 'keeper', 'quota-1', script(call('write', { path: 'big.md', content: 'x'.repeat(90 * 1024) }), `then ${call('bash', { command: fill })}`, 'then done'));
    const [write, bash] = toolResults(answer.messages);
    expect(write?.output).toEqual({ error: 'Writing 90 KiB to "big.md" would take the account\'s files past its disk quota of 64 KiB; delete files to make room.' });
    expect(bash?.output).toMatchObject({ error: "bash was killed: the account's files went past its disk quota of 64 KiB. Delete files to make room.", exitCode: null });
    expect((bash?.output as { stdout: string }).stdout).not.toContain('finished');
  });
});
