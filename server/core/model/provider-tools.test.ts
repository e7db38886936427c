import { describe, expect, it } from 'vitest';
import { validateAgentConfig } from '../agent-config/agent-config-schema.js';
import { providerToolsOf } from './provider-tools.js';
import type { ProviderName } from './providers/provider-registry.js';

/** The provider's own definition of each tool it has: the id its official client gives the tool. */
const toolIds = (provider: ProviderName, settings: Record<string, unknown> = {}) =>
  Object.fromEntries(Object.entries(providerToolsOf(provider, settings)).map(([name, build]) => [name, build().id]));

describe('provider-defined tools follow the provider', () => {
  it.each([
    ['openai', { betaSearch: 'openai.web_search', codeExecution: 'openai.code_interpreter' }],
    ['azure', { betaSearch: 'openai.web_search', codeExecution: 'openai.code_interpreter' }],
    ['anthropic', { betaSearch: 'anthropic.web_search_20250305', codeExecution: 'anthropic.code_execution_20250825' }],
    ['google', { betaSearch: 'google.google_search', codeExecution: 'google.code_execution', urlContext: 'google.url_context' }],
    ['xai', { betaSearch: 'xai.web_search', codeExecution: 'xai.code_execution' }],
    ['mistral', {}],
    ['groq', {}],
    ['amazon-bedrock', {}],
    ['deepseek', {}],
    ['openai-compatible', {}],
  ] as const)('%s has %j', (provider, expected) => {
    expect(toolIds(provider)).toEqual(expected);
  });

  it('OpenAI and Azure have none on the Chat Completions API', () => {
    expect(toolIds('openai', { api: 'chat' })).toEqual({});
    expect(toolIds('azure', { api: 'chat' })).toEqual({});
  });

  const agentOn = (provider: string, connection: Record<string, unknown>, tools: Record<string, unknown>) => ({
    provider: { [provider]: { apiKey: 'k', ...connection } },
    model: { provider, id: 'some-model' },
    tools,
  });

  it.each([
    [agentOn('mistral', {}, { betaSearch: {} }), 'config.tools.betaSearch is the model provider\'s own web search, which config.model.provider "mistral" does not have (providers that have it: openai (api "responses"), anthropic, google, azure (api "responses"), xai)'],
    [agentOn('anthropic', {}, { urlContext: {} }), 'config.tools.urlContext is the model provider\'s own URL context, which config.model.provider "anthropic" does not have (providers that have it: google)'],
    [agentOn('openai', { api: 'chat' }, { codeExecution: { needsApproval: true } }), 'config.tools.codeExecution is the model provider\'s own code execution, which config.model.provider "openai" with config.provider.openai.api "chat" does not have'],
    [{ provider: { openai: { apiKey: 'k', model: 'gpt-test', api: 'chat' } }, tools: { betaSearch: {} } }, 'config.model.provider "openai" with config.provider.openai.api "chat" does not have'],
  ])('refuses a provider-defined tool the chosen provider lacks when the config is written (%#)', (config, message) => {
    expect(() => validateAgentConfig(config)).toThrow(message);
  });

  it('accepts each tool where the provider has it, and a disabled one anywhere', () => {
    expect(() => validateAgentConfig(agentOn('google', {}, { betaSearch: {}, codeExecution: {}, urlContext: { async: true } }))).not.toThrow();
    expect(() => validateAgentConfig(agentOn('anthropic', {}, { betaSearch: {}, codeExecution: {} }))).not.toThrow();
    expect(() => validateAgentConfig(agentOn('mistral', {}, { betaSearch: { enabled: false } }))).not.toThrow();
    // No model chosen yet: nothing to check against (the turn refuses the agent anyway).
    expect(() => validateAgentConfig({ tools: { urlContext: {} } })).not.toThrow();
  });

  it('accepts only the common options on these tools', () => {
    expect(() => validateAgentConfig(agentOn('google', {}, { urlContext: { maxUses: 3 } }))).toThrow('config.tools.urlContext');
  });
});
