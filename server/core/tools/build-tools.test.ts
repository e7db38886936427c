import { tool, type Tool, type ToolSet } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFixtureSearch, type FixtureSearchServer } from '../../../fixtures/search-server/fixture-search-server.js';
import type { Logger } from '../logger.js';
import { providerToolsOf } from '../model/provider-tools.js';
import { buildTools, type ToolSource } from './build-tools.js';
import type { ToolContext } from './tool-context.js';
import { toolFactories } from './tool-registry.js';
import { toolCatalog } from '../config-parsing/tool-catalog.js';

const searchKey = 'tvly-unit-test-key-0123456789';

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message?: string }[] = [];
  const record = (level: string) => (fields: Record<string, unknown>, message?: string) => lines.push({ level, fields, message });
  const logger: Logger = { info: record('info'), warn: record('warn'), error: record('error'), debug: record('debug') };
  return { logger, lines };
}

const callOptions = { toolCallId: 'call-1', messages: [], abortSignal: new AbortController().signal, context: undefined };

describe('buildTools: the registry rules of the spec', () => {
  let search: FixtureSearchServer;
  let context: ToolContext;
  let lines: ReturnType<typeof recordingLogger>['lines'];

  beforeAll(async () => {
    search = await startFixtureSearch({ apiKey: searchKey });
  });
  afterAll(async () => {
    await search.close();
  });

  const makeContext = (overrides: Partial<ToolContext> = {}): ToolContext => {
    const recorder = recordingLogger();
    lines = recorder.lines;
    context = {
      accountId: 'acc_1',
      agentId: 'agent',
      conversationKey: 'c',
      turnId: 'turn_1',
      transport: 'json',
      environment: { alphaBaseUrl: search.baseURL },
      providerName: 'openai',
      providerTools: providerToolsOf('openai', { apiKey: 'x' }),
      logger: recorder.logger,
      fetch,
      ...overrides,
    };
    return context;
  };

  it('rule 1: an unknown tool name is rejected when the tools are built', async () => {
    await expect(buildTools({ tools: { mystery: {} } }, makeContext())).rejects.toThrow('config.tools.mystery is not a known tool');
  });

  it('rule 2: sandbox tools never come from config.tools, only from their own source', async () => {
    await expect(buildTools({ tools: { bash: {} } }, makeContext())).rejects.toThrow('bash comes only from config.sandbox and config.workspace');
    const sandbox: ToolSource = { name: 'config.sandbox', build: (config): ToolSet => (config.sandbox ? { bash: tool({ inputSchema: z.object({}), execute: async () => 'ran' }) } : {}) };
    expect(Object.keys(await buildTools({}, makeContext(), { sources: [sandbox] }))).toEqual([]);
    expect(Object.keys(await buildTools({ sandbox: {} }, makeContext(), { sources: [sandbox] }))).toEqual(['bash']);
  });

  it('rule 3: run_subagent comes only from config.subagent', async () => {
    await expect(buildTools({ tools: { run_subagent: {} } }, makeContext())).rejects.toThrow('run_subagent comes only from config.subagent');
  });

  it('rule 4: load_skill comes only from config.skills', async () => {
    await expect(buildTools({ tools: { load_skill: {} } }, makeContext())).rejects.toThrow('load_skill comes only from config.skills');
  });

  it('rule 5: external tools come from one static map whose keys are the model-facing names', async () => {
    expect(Object.keys(toolFactories).sort()).toEqual(Object.keys(toolCatalog).sort());
    const tools = await buildTools({ tools: { alphaSearch: { apiKey: searchKey }, alphaExtract: { apiKey: searchKey }, test_async: {}, betaSearch: {} } }, makeContext());
    expect(Object.keys(tools).sort()).toEqual(['alphaExtract', 'alphaSearch', 'betaSearch', 'test_async']);
    expect(Object.keys(await buildTools({ tools: { test_async: { enabled: false } } }, makeContext()))).toEqual([]);
  });

  it('rule 6: needsApproval is applied before the tools reach the model', async () => {
    const tools = await buildTools({ tools: { test_async: { needsApproval: true }, alphaSearch: { apiKey: searchKey } } }, makeContext());
    expect(tools.test_async?.needsApproval).toBe(true);
    expect(tools.alphaSearch?.needsApproval).toBeFalsy();
  });

  it('rule 7: local async tools are wrapped by the coordinator; a provider-defined one only logs a warning', async () => {
    const wrapped: string[] = [];
    const wrapAsync = (name: string, original: Tool) => {
      wrapped.push(name);
      return original;
    };
    await buildTools({ tools: { test_async: { async: true }, alphaSearch: { apiKey: searchKey }, betaSearch: { async: true } } }, makeContext(), { wrapAsync });
    expect(wrapped).toEqual(['test_async']);
    expect(lines.some((line) => line.level === 'warn' && line.fields.tool === 'betaSearch')).toBe(true);
  });

  it('rule 8: start, finish, duration and failure of a tool are logged, without inputs or outputs', async () => {
    const tools = await buildTools({ tools: { test_async: { durationMs: 0 }, alphaSearch: { apiKey: searchKey } } }, makeContext());
    await tools.test_async!.execute!({ label: 'secret-input' }, callOptions);
    search.failNext(500);
    await expect(tools.alphaSearch!.execute!({ query: 'q' }, callOptions)).rejects.toThrow('HTTP 500');
    const phases = lines.filter((line) => line.fields.event === 'tool').map((line) => `${String(line.fields.tool)}:${String(line.fields.phase)}`);
    expect(phases).toEqual(['test_async:start', 'test_async:finish', 'alphaSearch:start', 'alphaSearch:failure']);
    expect(lines.find((line) => line.fields.phase === 'finish')?.fields.durationMs).toEqual(expect.any(Number));
    expect(lines.find((line) => line.fields.phase === 'failure')?.fields.status).toBe(500);
    expect(JSON.stringify(lines)).not.toContain('secret-input');
  });

  it('rule 9: external tool configuration is not taken from workspace, skills or subagent', async () => {
    const source: ToolSource = { name: 'config.workspace', build: () => ({ alphaSearch: tool({ inputSchema: z.object({}), execute: async () => 'shadow' }) }) };
    await expect(buildTools({ tools: { alphaSearch: { apiKey: searchKey } } }, makeContext(), { sources: [source] })).rejects.toThrow('config.workspace defines the tool alphaSearch');
  });
});

describe('search tools', () => {
  let search: FixtureSearchServer;
  beforeAll(async () => {
    search = await startFixtureSearch({ apiKey: searchKey });
  });
  afterAll(async () => {
    await search.close();
  });

  const context = (alphaApiKey?: string): ToolContext => ({
    accountId: 'acc_1',
    agentId: 'agent',
    conversationKey: 'c',
    turnId: 'turn_1',
    transport: 'json',
    environment: { alphaBaseUrl: search.baseURL, ...(alphaApiKey ? { alphaApiKey } : {}) },
    providerName: 'openai',
    providerTools: providerToolsOf('openai', { apiKey: 'x', api: 'chat' }),
    logger: { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} },
    fetch,
  });

  it('sends the account key as the bearer and only the tool’s own options, in snake_case', async () => {
    const tools = await buildTools({ tools: { alphaSearch: { apiKey: searchKey, maxResults: 2, searchDepth: 'advanced', needsApproval: false } } }, context());
    const output = (await tools.alphaSearch!.execute!({ query: 'otters' }, callOptions)) as { results: unknown[] };
    expect(output.results).toHaveLength(2);
    expect(search.requests().at(-1)).toMatchObject({ path: '/search', authorizationPresent: true, body: { query: 'otters', max_results: 2, search_depth: 'advanced' } });
    expect(search.requests().at(-1)?.body).not.toHaveProperty('needs_approval');
    expect(search.requests().at(-1)?.body).not.toHaveProperty('api_key');
  });

  it('falls back to ALPHA_API_KEY for the search family only, and names the missing key', async () => {
    const tools = await buildTools({ tools: { alphaExtract: {} } }, context(searchKey));
    const output = (await tools.alphaExtract!.execute!({ urls: ['https://example.com/a'] }, callOptions)) as { pages: { url: string }[] };
    expect(output.pages[0]?.url).toBe('https://example.com/a');
  });

  it('fails only the tool, when it runs, when no key is set: the other tools and the turn go on', async () => {
    const tools = await buildTools({ tools: { alphaSearch: {}, test_async: {} } }, context());
    expect(Object.keys(tools)).toEqual(expect.arrayContaining(['alphaSearch', 'test_async']));
    await expect(tools.alphaSearch!.execute!({ query: 'x' }, callOptions)).rejects.toThrow('config.tools.alphaSearch.apiKey is missing or not a string');
  });

  it('throws an error that includes the status on a non-2xx answer', async () => {
    const tools = await buildTools({ tools: { alphaSearch: { apiKey: 'wrong-key' } } }, context());
    await expect(tools.alphaSearch!.execute!({ query: 'x' }, callOptions)).rejects.toThrow('alphaSearch: the service answered HTTP 401');
  });

  it('refuses betaSearch on the Chat Completions API, naming the field and the providers that have it', async () => {
    await expect(buildTools({ tools: { betaSearch: {} } }, context())).rejects.toThrow(
      'config.tools.betaSearch is the model provider\'s own web search, which config.model.provider "openai" does not have (providers that have it: openai (api "responses"), anthropic, google, azure (api "responses"), xai)',
    );
  });
});
