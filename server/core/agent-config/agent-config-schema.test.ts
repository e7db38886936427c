import { describe, expect, it } from 'vitest';
import { validateAgentConfig } from './agent-config-schema.js';
import { applyMergePatch } from './json-merge-patch.js';
import { toolCatalog } from '../config-parsing/tool-catalog.js';

const external = { completionBaseUrl: 'http://127.0.0.1:4200', completionBearerToken: 'token-123' };

describe('validateAgentConfig', () => {
  it('accepts a full config and keeps the tools search service options', () => {
    const config = {
      system: 'Be brief.',
      provider: { openai: { apiKey: 'sk-x', model: 'gpt-test', baseURL: 'http://127.0.0.1:9/v1', api: 'chat' } },
      tools: { alphaSearch: { apiKey: 'k', maxResults: 3, searchDepth: 'advanced' }, test_async: { async: true }, test_external_async: { async: true, execution: 'external-dispatch', ...external } },
    };
    expect(validateAgentConfig(config)).toEqual(config);
    expect(validateAgentConfig({})).toEqual({});
  });

  it.each([
    [{ tools: { alphaSearch: { maxResults: 0 } } }, 'config.tools.alphaSearch.maxResults must be a positive integer'],
    [{ tools: { alphaSearch: { maxResults: '3' } } }, 'config.tools.alphaSearch.maxResults must be a positive integer'],
    [{ tools: { alphaSearch: { enabled: 'yes' } } }, 'config.tools.alphaSearch.enabled must be a boolean'],
    [{ tools: { alphaSearch: { async: 1 } } }, 'config.tools.alphaSearch.async must be a boolean'],
    [{ tools: { alphaSearch: { needsApproval: null } } }, 'config.tools.alphaSearch.needsApproval must be a boolean'],
    [{ tools: { alphaSearch: { execution: 'later' } } }, 'config.tools.alphaSearch.execution must be "same-invocation" or "external-dispatch"'],
    [{ tools: { alphaSearch: { apiKey: 42 } } }, 'config.tools.alphaSearch.apiKey must be a string'],
    [{ tools: { test_external_async: { ...external, completionBaseUrl: '/relative' } } }, 'config.tools.test_external_async.completionBaseUrl must be an absolute http(s) URL'],
    [{ tools: { test_external_async: { ...external, completionBaseUrl: 'ftp://x' } } }, 'config.tools.test_external_async.completionBaseUrl must be an absolute http(s) URL'],
    [{ tools: { test_external_async: { completionBaseUrl: 'http://x' } } }, 'config.tools.test_external_async.completionBearerToken is required'],
    [{ tools: { test_external_async: { ...external, completionBearerToken: 5 } } }, 'config.tools.test_external_async.completionBearerToken is required'],
    [{ tools: { unknownTool: {} } }, 'config.tools.unknownTool is not a known tool'],
    [{ tools: { bash: {} } }, 'config.tools.bash is not allowed: bash comes only from config.sandbox and config.workspace'],
    [{ tools: { read: {} } }, 'config.tools.read is not allowed: read comes only from config.workspace'],
    [{ tools: { run_subagent: {} } }, 'config.tools.run_subagent is not allowed: run_subagent comes only from config.subagent'],
    [{ tools: { load_skill: {} } }, 'config.tools.load_skill is not allowed: load_skill comes only from config.skills'],
    [{ tools: { test_async: { surprise: 1 } } }, 'config.tools.test_async.surprise is not allowed here'],
    [{ tools: { alphaSearch: 'on' } }, 'config.tools.alphaSearch must be an object of tool options'],
    [{ tools: [] }, 'config.tools must be an object keyed by tool name'],
    [{ provider: { cohere: { apiKey: 'x' } } }, 'config.provider.cohere is not a supported provider (supported: openai, anthropic, google, amazon-bedrock, azure, mistral, groq, xai, deepseek, openai-compatible)'],
    [{ provider: { openai: { model: 'm' } } }, 'config.provider.openai.apiKey is required and must be a string'],
    [{ provider: { openai: { apiKey: 7, model: 'm' } } }, 'config.provider.openai.apiKey is required and must be a string'],
    [{ provider: { openai: { apiKey: 'k', model: 'm', api: 'completions' } } }, 'config.provider.openai.api must be "responses" or "chat"'],
    [{ mystery: true }, 'config.mystery is not allowed here'],
    [{ system: 5 }, 'config.system must be a string'],
  ])('rejects %j: %s', (config, message) => {
    expect(() => validateAgentConfig(config)).toThrow(message);
  });

  it('has an option schema for every catalog tool', () => {
    for (const entry of Object.values(toolCatalog)) expect(entry.options).toBeDefined();
  });
});

describe('applyMergePatch (RFC 7396)', () => {
  it('merges objects, removes with null and replaces everything else', () => {
    expect(applyMergePatch({ a: 'b', c: { d: 'e', f: 'g' } }, { a: 'z', c: { f: null } })).toEqual({ a: 'z', c: { d: 'e' } });
    expect(applyMergePatch({ a: [1, 2] }, { a: [3] })).toEqual({ a: [3] });
    expect(applyMergePatch('x', { a: 1 })).toEqual({ a: 1 });
    expect(applyMergePatch({ a: 1 }, 'x')).toBe('x');
  });
});

describe('tool names that are also Object.prototype members', () => {
  it('are unknown tools, not inherited entries', () => {
    expect(() => validateAgentConfig({ tools: { constructor: {} } })).toThrow('config.tools.constructor is not a known tool');
    expect(() => validateAgentConfig({ tools: { toString: {} } })).toThrow('config.tools.toString is not a known tool');
  });
});
