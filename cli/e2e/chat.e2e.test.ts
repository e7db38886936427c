import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureModel, type FixtureModelServer } from '../../fixtures/model-server/fixture-model-server.js';
import { startFixtureSearch, type FixtureSearchServer } from '../../fixtures/search-server/fixture-search-server.js';
import { serve } from '../../server/serve.js';
import { testDatabaseUrl } from '../../test/support/test-storage.js';
import { createApiClient } from '../api-client.js';
import { loadConversation, transcriptFromHistory } from '../chat/conversation-history.js';
import { cliEnvironment, runCli } from './run-cli.js';

/**
 * End to end: `harness chat -m` as a child process (stdout a pipe, not a terminal) against
 * the real service, whose agent talks to the fixture model and the fixture search service.
 */

let service: Awaited<ReturnType<typeof serve>>;
let model: FixtureModelServer;
let search: FixtureSearchServer;
let env: Record<string, string>;
let previousAlphaBaseUrl: string | undefined;
let scratch: string | undefined;

const searchKey = 'tvly-e2e-chat-0123456789abcdef';

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'harness-chat-e2e-'));
  model = await startFixtureModel({ apiKey: 'sk-e2e-model' });
  search = await startFixtureSearch({ apiKey: searchKey });
  // The service reads the search service's address from the environment, in this process.
  previousAlphaBaseUrl = process.env.ALPHA_BASE_URL;
  process.env.ALPHA_BASE_URL = search.baseURL;
  service = await serve({ accountPort: 0, agentPort: 0, dataDir: join(scratch, 'data'), databaseUrl: await testDatabaseUrl(join(scratch, 'data')), logger: false });
  env = cliEnvironment(join(scratch, 'config'), { HARNESS_ACCOUNT_URL: service.accountUrl, HARNESS_AGENT_URL: service.agentUrl });
  expect((await runCli(['account', 'create', '--username', 'e2e-chatter', '--description', 'chat'], env)).exitCode).toBe(0);
  const configFile = join(scratch, 'agent.json');
  await writeFile(
    configFile,
    JSON.stringify({
      system: 'Be brief.',
      provider: { openai: { apiKey: 'sk-e2e-model', baseURL: model.baseURL, model: 'fixture', api: 'chat' } },
      tools: { alphaSearch: { apiKey: searchKey, needsApproval: true, maxResults: 3 } },
    }),
  );
  expect((await runCli(['agent', 'put', 'agent', '--file', configFile], env)).exitCode).toBe(0);
});

afterAll(async () => {
  await service?.close();
  await Promise.all([model?.close(), search?.close()]);
  if (previousAlphaBaseUrl === undefined) delete process.env.ALPHA_BASE_URL;
  else process.env.ALPHA_BASE_URL = previousAlphaBaseUrl;
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('harness chat against the running service', () => {
  it('prints the reply to a one-shot message and exits 0', async () => {
    const result = await runCli(['chat', 'agent', '-m', 'hello'], env);
    expect(result.stdout).toBe('Echo: hello\n');
    expect(result.stderr).toMatch(/^conversation: (cli-\d+-[0-9a-f]{6}) \(continue with: harness chat agent --conversation \1\)\n$/);
    expect(result.exitCode).toBe(0);
  });

  it('approves a tool call with --approve-all and reports the turn as JSON; the history shows it', async () => {
    const result = await runCli(['chat', 'agent', '--conversation', 'e2e search', '-m', 'search: cats', '--approve-all', '--json'], env);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const report = JSON.parse(result.stdout) as { status: string; text: string; toolCalls: { toolName: string; state: string; output: { results: unknown[] } }[]; approvals: { approved: boolean }[] };
    expect(report).toMatchObject({ conversationKey: 'e2e search', status: 'completed', approvals: [{ toolName: 'alphaSearch', input: { query: 'cats' }, approved: true }] });
    expect(report.toolCalls).toMatchObject([{ toolName: 'alphaSearch', state: 'output-available' }]);
    expect(report.toolCalls[0]?.output.results).toHaveLength(3);
    expect(report.text).toContain('alphaSearch: ');

    const profile = JSON.parse(await readFile(join(env.XDG_CONFIG_HOME ?? '', 'harness', 'profiles.json'), 'utf8')) as { profiles: { default: { secret: string } } };
    const agentService = createApiClient({ baseUrl: service.agentUrl, serviceName: 'agent', secret: profile.profiles.default.secret });
    const transcript = transcriptFromHistory(await loadConversation(agentService, 'agent', 'e2e search'));
    expect(transcript.entries[0]).toEqual({ kind: 'user', text: 'search: cats' });
    expect(transcript.entries).toContainEqual(expect.objectContaining({ kind: 'tool-call', toolName: 'alphaSearch', state: 'output-available' }));
    expect(transcript.entries.at(-1)).toMatchObject({ kind: 'text', text: expect.stringContaining('alphaSearch: ') });
    expect(transcript.approvals).toEqual([]);
    expect(await loadConversation(agentService, 'agent', 'never used')).toBeUndefined();
  });

  it('denies with --deny-all: the model is told why', async () => {
    const result = await runCli(['chat', 'agent', '-m', 'search: dogs', '--deny-all'], env);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('alphaSearch: Denied by the user (harness chat --deny-all).\n');
    expect(result.stderr).toContain('⚙ alphaSearch {"query":"dogs"} → awaiting approval\n⚙ alphaSearch {"query":"dogs"} → denied: Denied by the user');
  });

  it('without a policy and without a terminal, stops at the approval with exit 1', async () => {
    const result = await runCli(['chat', 'agent', '-m', 'search: birds'], env);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/^harness: the agent is waiting for approval: Run alphaSearch \{"query":"birds"\}\? .*answer it with `harness async agent --conversation cli-\S+ --approve \S+ --wait`/m);
  });

  it('never denies a waiting approval silently: -m sends nothing and names the harness async command, which answers it', async () => {
    const asked = await runCli(['chat', 'agent', '--conversation', 'e2e waiting', '-m', 'search: owls'], env);
    expect(asked.exitCode).toBe(1);
    const approvalId = /--approve (\S+) --wait/.exec(asked.stderr)?.[1] ?? '';
    expect(asked.stderr).toContain(`answer it with \`harness async agent --conversation 'e2e waiting' --approve ${approvalId} --wait\``);

    const next = await runCli(['chat', 'agent', '--conversation', 'e2e waiting', '-m', 'something else'], env);
    expect(next.exitCode).toBe(1);
    expect(next.stdout).toBe('');
    expect(next.stderr).toContain(`harness: conversation e2e waiting is waiting for approval: Run alphaSearch {"query":"owls"}? (approval ${approvalId}); a new message would deny it, so nothing was sent.`);

    // The printed command works on an approval the chat route asked for.
    const answered = await runCli(['async', 'agent', '--conversation', 'e2e waiting', '--approve', approvalId, '--wait', '--interval', '50'], env);
    expect(answered.exitCode).toBe(0);
    expect(answered.stdout).toMatch(/^alphaSearch: /);
  });

  it('with --approve-all, approves what a conversation waits for, then sends the message', async () => {
    const asked = await runCli(['chat', 'agent', '--conversation', 'e2e later', '-m', 'search: bats'], env);
    expect(asked.exitCode).toBe(1);
    const result = await runCli(['chat', 'agent', '--conversation', 'e2e later', '-m', 'thanks', '--approve-all'], env);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^alphaSearch: .*\nEcho: thanks\n$/s);
    expect(result.stderr).toContain('The conversation was waiting for approval: Run alphaSearch {"query":"bats"}?');
    expect(result.stderr).toContain('⚙ alphaSearch {"query":"bats"} → 3 results');
  });

  it('prints the text blocks of a multi-step async turn on their own lines, with --wait and in harness status', async () => {
    const configFile = join(scratch ?? '', 'no-approval.json');
    await writeFile(
      configFile,
      JSON.stringify({
        system: 'Be brief.',
        provider: { openai: { apiKey: 'sk-e2e-model', baseURL: model.baseURL, model: 'fixture', api: 'chat' } },
        tools: { alphaSearch: { apiKey: searchKey, maxResults: 3 } },
      }),
    );
    expect((await runCli(['agent', 'put', 'searcher', '--file', configFile], env)).exitCode).toBe(0);
    const waited = await runCli(['async', 'searcher', '-m', 'looking\nsearch: moths', '--wait', '--interval', '50'], env);
    expect(waited.exitCode).toBe(0);
    expect(waited.stdout).toMatch(/^Echo: looking\nalphaSearch: \S/);
    const eventId = /^event (\S+) /.exec(waited.stderr)?.[1] ?? '';
    const status = await runCli(['status', eventId], env);
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toMatch(/\nstatus: completed\n\nEcho: looking\nalphaSearch: \S/);
  });

  it('fails with exit 1 when the model fails, and when the agent does not exist', async () => {
    const failed = await runCli(['chat', 'agent', '-m', 'fail: 400'], env);
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toMatch(/^harness: .+\n$/);
    const missing = await runCli(['chat', 'nobody', '-m', 'hi'], env);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(/\(not_found, HTTP 404\)\n$/);
  });
});
