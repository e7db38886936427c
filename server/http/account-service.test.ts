import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, createAccount, startTestServices, testAdminSecret, type TestServices } from '../../test/support/test-services.js';
import { storedRowsText } from '../../test/support/test-storage.js';

const providerKey = 'sk-provider-key-PLAINTEXT-0001';
const searchKey = 'tvly-search-key-PLAINTEXT-0002';

const agentConfig = {
  system: 'You are helpful.',
  provider: { openai: { apiKey: providerKey, model: 'fixture-model' } },
  tools: { alphaSearch: { apiKey: searchKey, maxResults: 2, needsApproval: true }, test_async: { async: true } },
};

describe('account service', () => {
  let services: TestServices;
  beforeEach(async () => {
    services = await startTestServices();
  });
  afterEach(async () => {
    await services.close();
  });

  it('answers GET / on both services', async () => {
    expect((await services.accountApp.inject({ method: 'GET', url: '/' })).json()).toMatchObject({ service: 'account', status: 'ok' });
    expect((await services.agentApp.inject({ method: 'GET', url: '/' })).json()).toMatchObject({ service: 'agent', status: 'ok' });
  });

  it('creates an account once, returns its secret once, and stores only a hash', async () => {
    const response = await services.accountApp.inject({ method: 'POST', url: '/accounts', payload: { username: 'alice', description: 'first' } });
    expect(response.statusCode).toBe(201);
    const created = response.json();
    expect(created).toMatchObject({ username: 'alice', description: 'first', accountId: expect.stringMatching(/^acc_/), createdAt: expect.any(String) });
    expect(created.secret).toMatch(/^hsk_/);
    const me = await services.accountApp.inject({ method: 'GET', url: '/accounts/me', headers: bearer(created.secret) });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({ accountId: created.accountId, username: 'alice', description: 'first', disabled: false, createdAt: created.createdAt });
    expect(me.body).not.toContain(created.secret);
    const taken = await services.accountApp.inject({ method: 'POST', url: '/accounts', payload: { username: 'ALICE', description: 'again' } });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({ error: { code: 'conflict', message: 'The username "ALICE" is already taken.' } });
    await services.storage.close();
    const files = await readAllDataFiles(services.dataDir);
    expect(files).not.toContain(created.secret);
  });

  it.each([
    [{ description: 'x' }, 400, 'body.username is required'],
    [{ username: 'bob' }, 400, 'body.description is required'],
    [{ username: 7, description: 'x' }, 400, 'body.username must be string'],
    [{ username: 'has space', description: 'x' }, 400, 'username must be 1-64 characters'],
    [{ username: 'bob', description: 'x', extra: true }, 400, 'body.extra is not allowed here'],
  ])('rejects account body %j', async (payload, status, message) => {
    const response = await services.accountApp.inject({ method: 'POST', url: '/accounts', payload });
    expect(response.statusCode).toBe(status);
    expect(response.json().error).toEqual({ code: 'invalid_request', message: expect.stringContaining(message) });
  });

  it('refuses bad JSON (400), other content types (415), huge bodies (413) and unknown routes (404) in one shape', async () => {
    const badJson = await services.accountApp.inject({ method: 'POST', url: '/accounts', headers: { 'content-type': 'application/json' }, payload: '{"username":' });
    expect([badJson.statusCode, badJson.json().error.code]).toEqual([400, 'invalid_request']);
    const text = await services.accountApp.inject({ method: 'POST', url: '/accounts', headers: { 'content-type': 'text/plain' }, payload: 'hello' });
    expect([text.statusCode, text.json().error.code]).toEqual([415, 'unsupported_media_type']);
    const huge = await services.accountApp.inject({ method: 'POST', url: '/accounts', payload: { username: 'big', description: 'x'.repeat(1_100_000) } });
    expect([huge.statusCode, huge.json().error.code]).toEqual([413, 'payload_too_large']);
    const unknown = await services.accountApp.inject({ method: 'GET', url: '/nowhere' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: { code: 'not_found', message: 'No route GET /nowhere.' } });
  });

  it('answers 401 for a missing, malformed, wrong or disabled bearer', async () => {
    const account = await createAccount(services.accountApp, 'carol');
    for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer nope' }, bearer(`${account.secret.slice(0, -1)}${account.secret.endsWith('A') ? 'B' : 'A'}`), bearer(testAdminSecret)]) {
      const response = await services.accountApp.inject({ method: 'GET', url: '/accounts/me', headers });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('unauthorized');
    }
    const disabled = await services.accountApp.inject({ method: 'PATCH', url: `/admin/accounts/${account.accountId}`, headers: bearer(testAdminSecret), payload: { disabled: true } });
    expect(disabled.json()).toMatchObject({ disabled: true });
    expect((await services.accountApp.inject({ method: 'GET', url: '/accounts/me', headers: bearer(account.secret) })).statusCode).toBe(401);
  });

  it('guards /admin/accounts with the admin secret only', async () => {
    const account = await createAccount(services.accountApp, 'dave');
    expect((await services.accountApp.inject({ method: 'GET', url: '/admin/accounts', headers: bearer(account.secret) })).statusCode).toBe(401);
    expect((await services.accountApp.inject({ method: 'GET', url: '/admin/accounts' })).statusCode).toBe(401);
    const list = await services.accountApp.inject({ method: 'GET', url: '/admin/accounts', headers: bearer(testAdminSecret) });
    expect(list.statusCode).toBe(200);
    expect(list.json().accounts.map((row: { username: string }) => row.username)).toEqual(['dave']);
    expect(list.body).not.toContain('secretHash');
    const missing = await services.accountApp.inject({ method: 'PATCH', url: '/admin/accounts/acc_00000000000000000000', headers: bearer(testAdminSecret), payload: { disabled: true } });
    expect(missing.statusCode).toBe(404);
  });
});

describe('sign-up', () => {
  let services: TestServices | undefined;
  afterEach(async () => {
    await services?.close();
    services = undefined;
  });
  const signUp = (username: string, options: { remoteAddress?: string; headers?: Record<string, string> } = {}) =>
    services!.accountApp.inject({ method: 'POST', url: '/accounts', payload: { username, description: 'x' }, ...options });

  it('limits sign-ups per client address (429 with Retry-After), not per service, and never the admin', async () => {
    services = await startTestServices({ signup: { mode: 'open', perMinutePerClient: 3 } });
    const statuses = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await signUp(`flood-${index}`, { remoteAddress: '203.0.113.7' })).statusCode);
    expect(statuses).toEqual([201, 201, 201, 429]);
    const refused = await signUp('flood-4', { remoteAddress: '203.0.113.7' });
    expect(refused.json()).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/^Too many sign-ups for this client address; retry in \d+ s\.$/) } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Refused before the body is read: an invalid body gets the 429 too, not a 400.
    expect((await services.accountApp.inject({ method: 'POST', url: '/accounts', remoteAddress: '203.0.113.7', payload: { nonsense: true } })).statusCode).toBe(429);
    expect((await signUp('neighbour', { remoteAddress: '203.0.113.8' })).statusCode).toBe(201);
    // One IPv6 /64 is one client.
    const v6 = [];
    for (let index = 0; index < 4; index += 1) v6.push((await signUp(`six-${index}`, { remoteAddress: `2001:db8:1:2::${index + 1}` })).statusCode);
    expect(v6).toEqual([201, 201, 201, 429]);
    expect((await signUp('admin-made', { remoteAddress: '203.0.113.7', headers: bearer(testAdminSecret) })).statusCode).toBe(201);
    const list = await services.accountApp.inject({ method: 'GET', url: '/admin/accounts', headers: bearer(testAdminSecret) });
    expect(list.json().accounts).toHaveLength(8);
  });

  it('HARNESS_SIGNUP=admin closes sign-up to everyone but the admin secret (403 naming what is needed)', async () => {
    services = await startTestServices({ signup: { mode: 'admin', perMinutePerClient: 10 } });
    for (const headers of [{}, { authorization: 'Bearer not-the-admin' }] as Record<string, string>[]) {
      const refused = await signUp('outsider', { headers });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({ error: { code: 'forbidden', message: 'Sign-up is closed on this service: POST /accounts needs the admin secret as the bearer.' } });
    }
    const created = await signUp('invited', { headers: bearer(testAdminSecret) });
    expect(created.statusCode).toBe(201);
    expect(created.json().secret).toMatch(/^hsk_/);
    // An account's own secret does not open sign-up either.
    expect((await signUp('friend', { headers: bearer(created.json().secret) })).statusCode).toBe(403);
  });
});

async function readAllDataFiles(folder: string): Promise<string> {
  const contents: string[] = [];
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) contents.push(await readFile(join(entry.parentPath, entry.name), 'utf8'));
  }
  // On PostgreSQL (the test storage switch) the tables are rows in the database, not files.
  const storedRows = await storedRowsText(join(folder, 'tables'));
  if (storedRows !== undefined) contents.push(storedRows);
  return contents.join('\n');
}

describe('agent configs', () => {
  let services: TestServices;
  let secret: string;
  beforeEach(async () => {
    services = await startTestServices();
    secret = (await createAccount(services.accountApp, 'erin')).secret;
  });
  afterEach(async () => {
    await services.close();
  });

  const put = (agentId: string, config: unknown, as = secret) =>
    services.accountApp.inject({ method: 'PUT', url: `/accounts/me/agents/${agentId}`, headers: bearer(as), payload: { config } });

  it('creates (201), replaces (200), reads redacted, lists and deletes (204)', async () => {
    const created = await put('helper', agentConfig);
    expect(created.statusCode).toBe(201);
    expect(created.json().config.provider.openai.apiKey).toEqual({ redacted: true, last4: '0001' });
    expect(created.json().config.tools.alphaSearch).toEqual({ apiKey: { redacted: true, last4: '0002' }, maxResults: 2, needsApproval: true });
    expect(created.body).not.toContain(providerKey);
    expect((await put('helper', { ...agentConfig, system: 'Changed.' })).statusCode).toBe(200);
    const read = await services.accountApp.inject({ method: 'GET', url: '/accounts/me/agents/helper', headers: bearer(secret) });
    expect(read.json()).toMatchObject({ agentId: 'helper', config: { system: 'Changed.' } });
    const list = await services.accountApp.inject({ method: 'GET', url: '/accounts/me/agents', headers: bearer(secret) });
    expect(list.json().agents.map((agent: { agentId: string }) => agent.agentId)).toEqual(['helper']);
    expect(list.body).not.toContain(searchKey);
    expect((await services.accountApp.inject({ method: 'DELETE', url: '/accounts/me/agents/helper', headers: bearer(secret) })).statusCode).toBe(204);
    expect((await services.accountApp.inject({ method: 'GET', url: '/accounts/me/agents/helper', headers: bearer(secret) })).statusCode).toBe(404);
    expect((await services.accountApp.inject({ method: 'DELETE', url: '/accounts/me/agents/helper', headers: bearer(secret) })).statusCode).toBe(404);
  });

  it('keeps stored secrets when the redacted form is sent back (PUT and PATCH)', async () => {
    const created = (await put('helper', agentConfig)).json();
    expect((await put('helper', created.config)).statusCode).toBe(200);
    const patched = await services.accountApp.inject({
      method: 'PATCH',
      url: '/accounts/me/agents/helper',
      headers: { ...bearer(secret), 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ config: { tools: { alphaSearch: { maxResults: 5, needsApproval: null }, test_async: null } } }),
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().config.tools).toEqual({ alphaSearch: { apiKey: { redacted: true, last4: '0002' }, maxResults: 5 } });
    const agent = await services.core.agents.load((await services.core.accounts.authenticate(secret)).accountId, 'helper');
    expect(agent.config.provider?.openai?.apiKey).toBe(providerKey);
    expect(agent.config.tools?.alphaSearch?.apiKey).toBe(searchKey);
    const placeholderWithoutValue = await put('other', { tools: { alphaSearch: { apiKey: { redacted: true, last4: '0002' } } } });
    expect(placeholderWithoutValue.statusCode).toBe(400);
    expect(placeholderWithoutValue.json().error.message).toContain('config.tools.alphaSearch.apiKey is a redacted placeholder');
  });

  it('never writes a key in plaintext to the data folder', async () => {
    await put('helper', agentConfig);
    await put('second', { ...agentConfig, channels: { telegram: { botToken: 'bot-token-PLAINTEXT-0003', secretToken: 'secret-token-PLAINTEXT-0004' } } });
    await services.storage.close();
    const files = await readAllDataFiles(services.dataDir);
    expect(files.length).toBeGreaterThan(0);
    expect(files).not.toMatch(/PLAINTEXT/);
  });

  it('validates with a 400 that names the field, and stores nothing', async () => {
    const response = await put('helper', { tools: { alphaSearch: { maxResults: -1 } } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 'invalid_request', message: 'config.tools.alphaSearch.maxResults must be a positive integer' } });
    expect((await put('bad id', {})).statusCode).toBe(400);
    const noConfig = await services.accountApp.inject({ method: 'PUT', url: '/accounts/me/agents/helper', headers: bearer(secret), payload: { settings: {} } });
    expect(noConfig.json().error.message).toBe('body.config is required');
    const list = await services.accountApp.inject({ method: 'GET', url: '/accounts/me/agents', headers: bearer(secret) });
    expect(list.json().agents).toEqual([]);
  });

  it("answers 404 for another account's agent, for every method", async () => {
    await put('private', agentConfig);
    const other = (await createAccount(services.accountApp, 'mallory')).secret;
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const response = await services.accountApp.inject({ method, url: '/accounts/me/agents/private', headers: bearer(other), ...(method === 'PATCH' ? { payload: { config: {} } } : {}) });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
    const list = await services.accountApp.inject({ method: 'GET', url: '/accounts/me/agents', headers: bearer(other) });
    expect(list.json().agents).toEqual([]);
    expect((await put('private', {}, other)).statusCode).toBe(201);
    const mine = await services.accountApp.inject({ method: 'GET', url: '/accounts/me/agents/private', headers: bearer(secret) });
    expect(mine.json().config.system).toBe('You are helpful.');
  });

  it('keeps 200 parallel agent writes from 20 accounts across a restart', async () => {
    // Twenty clients: one address may create only HARNESS_LIMIT_SIGNUPS_PER_MINUTE accounts a minute.
    const accounts = await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const response = await services.accountApp.inject({ method: 'POST', url: '/accounts', remoteAddress: `198.51.100.${index}`, payload: { username: `parallel-${index}`, description: 'x' } });
        expect(response.statusCode).toBe(201);
        return response.json<{ accountId: string; secret: string }>();
      }),
    );
    const responses = await Promise.all(
      accounts.flatMap((account, accountIndex) =>
        Array.from({ length: 10 }, (_, agentIndex) => put(`agent-${agentIndex}`, { system: `account ${accountIndex} agent ${agentIndex}` }, account.secret)),
      ),
    );
    expect(responses.every((response) => response.statusCode === 201)).toBe(true);
    await services.restart();
    for (const [accountIndex, account] of accounts.entries()) {
      const list = await services.accountApp.inject({ method: 'GET', url: '/accounts/me/agents', headers: bearer(account.secret) });
      const agents = list.json().agents as { agentId: string; config: { system: string } }[];
      expect(agents).toHaveLength(10);
      for (const agent of agents) expect(agent.config.system).toBe(`account ${accountIndex} agent ${agent.agentId.slice('agent-'.length)}`);
    }
  });
});
