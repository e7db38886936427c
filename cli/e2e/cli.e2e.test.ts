import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../../server/serve.js';
import { testDatabaseUrl } from '../../test/support/test-storage.js';
import { cliEnvironment, runCli, spawnCli } from './run-cli.js';

/**
 * End to end: the real CLI as a child process against the real service (both on loopback,
 * port 0, a temporary data folder), with a temporary XDG_CONFIG_HOME.
 */

let service: Awaited<ReturnType<typeof serve>>;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'harness-cli-e2e-'));
  service = await serve({ accountPort: 0, agentPort: 0, dataDir: join(scratch, 'data'), databaseUrl: await testDatabaseUrl(join(scratch, 'data')), logger: false });
});

afterAll(async () => {
  await service?.close();
  await rm(scratch, { recursive: true, force: true });
});

async function freshConfigHome(): Promise<string> {
  return mkdtemp(join(scratch, 'config-'));
}

describe('harness against a running service', () => {
  // A dozen CLI processes one after another, each starting Node and tsx: give it room on a busy machine.
  it('creates an account, manages an agent and its tools, and never prints a secret it was not asked for', { timeout: 120_000 }, async () => {
    const configHome = await freshConfigHome();
    const env = cliEnvironment(configHome, { HARNESS_ACCOUNT_URL: service.accountUrl, HARNESS_AGENT_URL: service.agentUrl });

    const created = await runCli(['account', 'create', '--username', 'e2e-alice', '--description', 'end-to-end', '--json'], env);
    expect(created.stderr).toBe('');
    expect(created.exitCode).toBe(0);
    const account = JSON.parse(created.stdout) as Record<string, unknown>;
    expect(account).toMatchObject({ username: 'e2e-alice', description: 'end-to-end', profile: 'default' });
    expect(account.secret).toBeUndefined();

    const profilesFile = join(configHome, 'harness', 'profiles.json');
    expect((await stat(profilesFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(configHome, 'harness'))).mode & 0o777).toBe(0o700);
    const secret = (JSON.parse(await readFile(profilesFile, 'utf8')) as { profiles: { default: { secret: string } } }).profiles.default.secret;
    expect(secret.length).toBeGreaterThan(10);
    expect(created.stdout).not.toContain(secret);

    const shown = await runCli(['account', 'show', '--json'], env);
    expect(shown.exitCode).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ accountId: account.accountId, username: 'e2e-alice' });
    expect(shown.stdout).not.toContain(secret);

    const configFile = join(configHome, 'helper.json');
    await writeFile(configFile, JSON.stringify({ system: 'Be brief.', tools: { test_async: {} } }));
    const put = await runCli(['agent', 'put', 'helper', '--file', configFile], env);
    expect(put.exitCode).toBe(0);
    // The saved line, then the config as the service stored it (secrets redacted).
    expect(put.stdout.split('\n')[0]).toBe('Saved agent helper (tools: test_async).');
    expect(JSON.parse(put.stdout.slice(put.stdout.indexOf('{')))).toEqual({ system: 'Be brief.', tools: { test_async: {} } });

    const listed = await runCli(['agent', 'list'], env);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toMatch(/^AGENT\s+TOOLS\s+UPDATED\nhelper\s+test_async\s+\S+\n$/);

    const apiKey = 'tvly-e2e-0123456789abcdef';
    const set = await runCli(['tools', 'set', 'helper', 'alphaSearch', '--enable', '--api-key-stdin', '--max-results', '3', '--needs-approval'], env, `${apiKey}\n`);
    expect(set.stderr).toBe('');
    expect(set.exitCode).toBe(0);
    expect(set.stdout).toMatch(/^TOOL\s+ENABLED\s+ASYNC\s+EXECUTION\s+APPROVAL\s+KEY\nalphaSearch\s+yes\s+no\s+same-invocation\s+yes\s+set\n$/);

    const disabled = await runCli(['tools', 'set', 'helper', 'test_async', '--disable', '--async', '--json'], env);
    expect(JSON.parse(disabled.stdout)).toMatchObject({ tool: { tool: 'test_async', enabled: false, async: true } });

    const tools = await runCli(['tools', 'list', 'helper'], env);
    expect(tools.exitCode).toBe(0);
    expect(tools.stdout.split('\n').map((line) => line.split(/\s+/).join(' '))).toEqual([
      'TOOL ENABLED ASYNC EXECUTION APPROVAL KEY',
      'test_async no yes same-invocation no -',
      'alphaSearch yes no same-invocation yes set',
      '',
    ]);

    // The merge patch kept the key and the other fields: the stored config shows them redacted.
    const fetched = await runCli(['agent', 'get', 'helper', '--json'], env);
    const agent = JSON.parse(fetched.stdout) as { config: { system: string; tools: Record<string, Record<string, unknown>> } };
    expect(agent.config.system).toBe('Be brief.');
    expect(agent.config.tools.alphaSearch).toMatchObject({ enabled: true, maxResults: 3, needsApproval: true, apiKey: { redacted: true, last4: 'cdef' } });
    expect(fetched.stdout).not.toContain(apiKey);

    const removed = await runCli(['agent', 'delete', 'helper'], env);
    expect(removed).toMatchObject({ exitCode: 0, stdout: 'Deleted agent helper.\n' });

    const missing = await runCli(['agent', 'get', 'helper'], env);
    expect(missing.exitCode).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^harness: .+ \(not_found, HTTP 404\)\n$/);
  });

  it('shows a service error as one line: a taken username', async () => {
    const env = cliEnvironment(await freshConfigHome(), { HARNESS_ACCOUNT_URL: service.accountUrl });
    expect((await runCli(['account', 'create', '--username', 'e2e-taken', '--description', 'first'], env)).exitCode).toBe(0);
    const second = await runCli(['--profile', 'other', 'account', 'create', '--username', 'e2e-taken', '--description', 'second'], env);
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toMatch(/^harness: .+ \(conflict, HTTP 409\)\n$/);
  });

  it('refuses an unknown tool with the service message naming it', async () => {
    const env = cliEnvironment(await freshConfigHome(), { HARNESS_ACCOUNT_URL: service.accountUrl });
    await runCli(['account', 'create', '--username', 'e2e-bob', '--description', 'tools'], env);
    const configFile = join(scratch, 'empty-agent.json');
    await writeFile(configFile, '{}');
    await runCli(['agent', 'put', 'plain', '--file', configFile], env);
    const refused = await runCli(['tools', 'set', 'plain', 'noSuchTool', '--enable'], env);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/^harness: .*noSuchTool.* \(invalid_request, HTTP 400\)\n$/);
  });
});

describe('harness without a service or profile', () => {
  it('tells the user to create an account when no profile exists', async () => {
    const result = await runCli(['agent', 'list'], cliEnvironment(await freshConfigHome()));
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/^harness: no profile "default" in .+: create it with `harness account create --username NAME --description TEXT`\n$/);
  });

  it('under npx, starts the commands it prints with npx harness and names the profile', async () => {
    const result = await runCli(['--profile', 'nope', 'agent', 'list'], cliEnvironment(await freshConfigHome(), { npm_command: 'exec' }));
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/^harness: no profile "nope" in .+: create it with `npx harness --profile nope account create --username NAME --description TEXT`\n$/);
  });

  it('says to run `harness serve` when the account service is not there', async () => {
    const closed = await serve({ accountPort: 0, agentPort: 0, dataDir: join(scratch, 'closed-data'), databaseUrl: await testDatabaseUrl(join(scratch, 'closed-data')), logger: false });
    await closed.close();
    const result = await runCli(['account', 'create', '--username', 'x', '--description', 'y', '--account-url', closed.accountUrl], cliEnvironment(await freshConfigHome()));
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(`harness: cannot reach the account service at ${closed.accountUrl}: is \`harness serve\` running?\n`);
  });

  it('reports a usage mistake as one line with exit code 2', async () => {
    const result = await runCli(['tools', 'set', 'helper'], cliEnvironment(await freshConfigHome()));
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe("harness: missing required argument 'tool'\n");
  });
});

describe('harness serve', () => {
  it('prints the URLs as one JSON line, serves, and exits 0 on SIGTERM', async () => {
    const child = spawnCli(['serve', '--account-port', '0', '--agent-port', '0', '--data-dir', join(scratch, 'serve-data'), '--json'], cliEnvironment(await freshConfigHome()));
    const firstLine = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        if (buffered.includes('\n')) resolve(buffered.slice(0, buffered.indexOf('\n')));
      });
      child.nodeChildProcess.once('exit', (code) => reject(new Error(`serve exited early with ${code}`)));
    });
    const urls = JSON.parse(firstLine) as { accountUrl: string; agentUrl: string };
    const account = await request(urls.accountUrl);
    expect(account.statusCode).toBe(200);
    expect(await account.body.json()).toMatchObject({ service: 'account', status: 'ok' });
    const agent = await request(urls.agentUrl);
    expect(await agent.body.json()).toMatchObject({ service: 'agent' });

    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toBe(`${firstLine}\n`);
  });
});
