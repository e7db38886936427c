import { afterEach, describe, expect, it } from 'vitest';
import { loadProfiles, profilesPath, saveProfile } from '../profiles.js';
import { createTestContext } from '../test-support/test-context.js';
import { runInProcess } from '../test-support/run-in-process.js';
import { startStubService } from '../test-support/stub-service.js';

let stub: Awaited<ReturnType<typeof startStubService>> | undefined;

afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const created = { accountId: 'acc_1', username: 'alice', description: 'tests', createdAt: '2025-01-01T00:00:00.000Z', secret: 'sk_account_secret' };

async function accountService() {
  stub = await startStubService((request) =>
    request.method === 'POST' ? { status: 201, body: created } : { status: 200, body: { ...created, secret: undefined } },
  );
  return stub;
}

describe('harness account create', () => {
  it('creates the account, saves the profile, and does not print the secret', async () => {
    const service = await accountService();
    const context = await createTestContext();
    await runInProcess(context, ['account', 'create', '--username', 'alice', '--description', 'tests', '--account-url', service.url, '--agent-url', 'http://127.0.0.1:9/']);
    expect(JSON.parse(service.requests[0]?.body ?? '')).toEqual({ username: 'alice', description: 'tests' });
    const path = profilesPath(context.env, context.homeDir);
    expect(await loadProfiles(path)).toEqual({
      default: { accountUrl: service.url, agentUrl: 'http://127.0.0.1:9', accountId: 'acc_1', username: 'alice', secret: 'sk_account_secret' },
    });
    expect(context.output()).toContain('acc_1');
    expect(context.output()).toContain(`Saved as profile "default" in ${path}. Try it: harness account show\n`);
    expect(context.output()).not.toContain('sk_account_secret');
  });

  it('signs up with the admin secret when HARNESS_ADMIN_SECRET is set (for HARNESS_SIGNUP=admin), and without a bearer otherwise', async () => {
    const service = await accountService();
    const operator = await createTestContext({ env: { HARNESS_ADMIN_SECRET: 'admin-secret-1' } });
    await runInProcess(operator, ['account', 'create', '--username', 'alice', '--description', 'tests', '--account-url', service.url, '--agent-url', 'http://127.0.0.1:9/']);
    expect(service.requests[0]?.headers.authorization).toBe('Bearer admin-secret-1');
    const stranger = await createTestContext();
    await runInProcess(stranger, ['account', 'create', '--username', 'alice', '--description', 'tests', '--account-url', service.url, '--agent-url', 'http://127.0.0.1:9/']);
    expect(service.requests[1]?.headers.authorization).toBeUndefined();
  });

  it('takes the URLs from the environment and the profile name from --profile', async () => {
    const service = await accountService();
    const context = await createTestContext({ env: { HARNESS_ACCOUNT_URL: service.url, HARNESS_AGENT_URL: 'http://agent.example' } });
    await runInProcess(context, ['--profile', 'work', 'account', 'create', '--username', 'alice', '--description', 'tests', '--json']);
    const profiles = await loadProfiles(profilesPath(context.env, context.homeDir));
    expect(profiles.work).toMatchObject({ accountUrl: service.url, agentUrl: 'http://agent.example' });
    const printed = JSON.parse(context.output()) as Record<string, unknown>;
    expect(printed).toMatchObject({ accountId: 'acc_1', username: 'alice', profile: 'work' });
    expect(printed.secret).toBeUndefined();
  });

  it('says how to use a profile other than default', async () => {
    const service = await accountService();
    const context = await createTestContext({ env: { HARNESS_ACCOUNT_URL: service.url, npm_command: 'exec' } });
    await runInProcess(context, ['--profile', 'work', 'account', 'create', '--username', 'alice', '--description', 'tests']);
    expect(context.output()).toContain(`Saved as profile "work" in ${profilesPath(context.env, context.homeDir)}. Try it: npx harness --profile work account show\n`);
  });

  it('under npx, says to run `npx harness serve` when the service is not listening', async () => {
    const service = await accountService();
    await service.close();
    stub = undefined;
    const context = await createTestContext({ env: { npm_command: 'exec' } });
    await expect(runInProcess(context, ['account', 'create', '--username', 'alice', '--description', 'tests', '--account-url', service.url])).rejects.toThrow(
      `cannot reach the account service at ${service.url}: is \`npx harness serve\` running?`,
    );
  });

  it('prints the secret once with --show-secret', async () => {
    const service = await accountService();
    const context = await createTestContext({ env: { HARNESS_ACCOUNT_URL: service.url } });
    await runInProcess(context, ['account', 'create', '--username', 'alice', '--description', 'tests', '--show-secret', '--json']);
    expect(JSON.parse(context.output())).toMatchObject({ secret: 'sk_account_secret' });
  });

  it('refuses to replace an existing profile without --force, before creating anything', async () => {
    const service = await accountService();
    const context = await createTestContext({ env: { HARNESS_ACCOUNT_URL: service.url } });
    const path = profilesPath(context.env, context.homeDir);
    await saveProfile(path, 'default', { accountUrl: service.url, agentUrl: service.url, accountId: 'acc_0', username: 'old', secret: 'old-secret' });
    await expect(runInProcess(context, ['account', 'create', '--username', 'alice', '--description', 'tests'])).rejects.toThrow(
      'profile "default" already exists (account old); pick another with --profile NAME, or replace it with --force',
    );
    expect(service.requests).toHaveLength(0);
    await runInProcess(context, ['account', 'create', '--username', 'alice', '--description', 'tests', '--force']);
    expect((await loadProfiles(path)).default?.username).toBe('alice');
  });

  it('refuses a bad URL in the environment, naming the variable', async () => {
    const context = await createTestContext({ env: { HARNESS_ACCOUNT_URL: 'ftp://x' } });
    await expect(runInProcess(context, ['account', 'create', '--username', 'a', '--description', 'd'])).rejects.toThrow(
      'HARNESS_ACCOUNT_URL=ftp://x is not an http:// or https:// URL',
    );
  });
});

describe('harness account show', () => {
  it("shows the profile's account", async () => {
    const service = await accountService();
    const context = await createTestContext();
    await saveProfile(profilesPath(context.env, context.homeDir), 'default', { accountUrl: service.url, agentUrl: service.url, accountId: 'acc_1', username: 'alice', secret: 'sk' });
    await runInProcess(context, ['account', 'show']);
    expect(service.requests[0]).toMatchObject({ method: 'GET', url: '/accounts/me' });
    expect(service.requests[0]?.headers.authorization).toBe('Bearer sk');
    expect(context.output()).toBe('account:     acc_1\nusername:    alice\ndescription: tests\ncreated:     2025-01-01T00:00:00.000Z\n');
  });

  it('tells the user to create an account when there is no profile', async () => {
    const context = await createTestContext();
    await expect(runInProcess(context, ['account', 'show'])).rejects.toThrow(/create it with `harness account create --username NAME --description TEXT`$/);
  });

  it('for --profile nope under npx, prints commands that run as printed', async () => {
    const context = await createTestContext({ env: { npm_command: 'exec' } });
    const path = profilesPath(context.env, context.homeDir);
    await saveProfile(path, 'demo', { accountUrl: 'http://127.0.0.1:9', agentUrl: 'http://127.0.0.1:9', accountId: 'acc_1', username: 'demo', secret: 'sk-demo' });
    await expect(runInProcess(context, ['--profile', 'nope', 'account', 'show'])).rejects.toThrow(
      `no profile "nope" in ${path} (saved profiles: demo): use a saved one, e.g. \`npx harness --profile demo account show\`, or create "nope" with \`npx harness --profile nope account create --username NAME --description TEXT\``,
    );
  });
});
