import { describe, expect, it } from 'vitest';
import { validateAgentConfig } from '../agent-config/agent-config-schema.js';
import { agentDestinations, checkAgentDestinations } from '../agent-config/agent-destinations.js';
import { OutboundPolicy } from '../outbound/outbound-policy.js';
import { redactSecrets } from '../secrets/redaction.js';
import { createAgentModel } from './language-model.js';

const privateBase = 'http://10.1.2.3:8080/v1';

/** One valid connection per provider, each with every secret field it takes. */
const connections: Record<string, Record<string, unknown>> = {
  openai: { apiKey: 'sk-openai-secret-1234', baseURL: privateBase, headers: { 'X-Team': 'team-secret-value' } },
  anthropic: { apiKey: 'sk-ant-secret-123456', baseURL: privateBase },
  google: { apiKey: 'google-secret-1234567', baseURL: privateBase },
  'amazon-bedrock': { region: 'eu-west-1', accessKeyId: 'AKIAEXAMPLEKEY000001', secretAccessKey: 'bedrock-secret-access-key', sessionToken: 'bedrock-session-token-1', baseURL: privateBase },
  azure: { apiKey: 'azure-secret-12345678', baseURL: privateBase, apiVersion: 'v1' },
  mistral: { apiKey: 'mistral-secret-123456', baseURL: privateBase },
  groq: { apiKey: 'groq-secret-123456789', baseURL: privateBase },
  xai: { apiKey: 'xai-secret-1234567890', baseURL: privateBase },
  deepseek: { apiKey: 'deepseek-secret-12345', baseURL: privateBase },
  'openai-compatible': { apiKey: 'compatible-secret-123', baseURL: privateBase, name: 'local' },
};

function agentOn(provider: string, model: Record<string, unknown> = {}) {
  return { provider: { [provider]: connections[provider] }, model: { provider, id: 'model-1', ...model } };
}

describe('config.provider and config.model', () => {
  it.each(Object.keys(connections))('accepts %s and redacts every secret field', (provider) => {
    const config = validateAgentConfig(agentOn(provider));
    const shown = JSON.stringify(redactSecrets(config));
    const secrets = Object.entries(connections[provider]!).flatMap(([field, value]) => (field === 'headers' ? Object.values(value as object) : ['apiKey', 'accessKeyId', 'secretAccessKey', 'sessionToken'].includes(field) ? [value] : []));
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(shown).not.toContain(secret);
    expect(shown).toContain('"redacted":true');
  });

  it.each(Object.keys(connections))('refuses a private %s endpoint under the public outbound policy', (provider) => {
    const policy = new OutboundPolicy({ mode: 'public', allow: [] });
    expect(() => checkAgentDestinations(policy, validateAgentConfig(agentOn(provider)))).toThrow(`config.provider.${provider}.baseURL points at 10.1.2.3, a private address`);
    void policy.close();
  });

  it('puts the endpoints Bedrock and Azure derive from their region and resource name under the policy', () => {
    const config = validateAgentConfig({ provider: { 'amazon-bedrock': { region: 'us-east-1', apiKey: 'bedrock-api-key-1' }, azure: { apiKey: 'k', resourceName: 'my-resource' } } });
    expect(agentDestinations(config)).toEqual([
      { field: 'config.provider.amazon-bedrock.region', url: 'https://bedrock-runtime.us-east-1.amazonaws.com', kind: 'model' },
      { field: 'config.provider.azure.resourceName', url: 'https://my-resource.openai.azure.com', kind: 'model' },
    ]);
  });

  it.each([
    [{ provider: { anthropic: { apiKey: 'k' } }, model: { provider: 'google', id: 'gemini' } }, 'config.model.provider is "google" but config.provider.google is not configured'],
    [{ provider: { anthropic: { apiKey: 'k' } }, model: { provider: 'cohere', id: 'x' } }, 'config.model.provider must name a provider'],
    [{ provider: { anthropic: { apiKey: 'k' } }, model: { provider: 'anthropic', id: 'c', fallbacks: [{ provider: 'groq', id: 'g' }] } }, 'config.model.fallbacks.0.provider is "groq" but config.provider.groq is not configured'],
    [{ provider: { anthropic: { apiKey: 'k' } }, model: { provider: 'anthropic', id: 'c', reasoning: 'max' } }, 'config.model.reasoning must be "none", "low", "medium" or "high"'],
    [{ provider: { anthropic: { apiKey: 'k' } }, model: { provider: 'anthropic', id: 'c', temperature: 3 } }, 'config.model.temperature must be a number from 0 to 2'],
    [{ provider: { anthropic: { apiKey: 'k' } }, model: { provider: 'anthropic', id: 'c', output: { type: 'table' } } }, 'config.model.output.type must be "object", "array", "choice" or "json"'],
    [{ provider: { anthropic: {} } }, 'config.provider.anthropic.apiKey is required'],
    [{ provider: { 'amazon-bedrock': { region: 'eu-west-1' } } }, 'config.provider.amazon-bedrock.accessKeyId is required (with secretAccessKey) unless apiKey is given'],
    [{ provider: { 'amazon-bedrock': { region: 'evil.com/x', apiKey: 'k' } } }, 'config.provider.amazon-bedrock.region must be an AWS region'],
    [{ provider: { azure: { apiKey: 'k' } } }, 'config.provider.azure.resourceName or baseURL is required'],
    [{ provider: { 'openai-compatible': { apiKey: 'k' } } }, 'config.provider.openai-compatible.baseURL must be an absolute http(s) URL'],
    [{ provider: { openai: { apiKey: 'k' } } }, 'config.provider.openai.model is required (the model id) unless config.model names the model'],
  ])('rejects %j: %s', (config, message) => {
    expect(() => validateAgentConfig(config)).toThrow(message);
  });

  it('keeps the short form: provider.openai.model without config.model', () => {
    const model = createAgentModel(validateAgentConfig({ provider: { openai: { apiKey: 'k', model: 'gpt-test' } } }));
    expect([model.providerName, model.modelId, Object.keys(model.providerTools)]).toEqual(['openai', 'gpt-test', ['betaSearch', 'codeExecution']]);
    expect(model.providerOptions).toEqual({ openai: { store: false } });
  });

  it.each([
    ['openai', { openai: { store: false, reasoningEffort: 'high', reasoningSummary: 'auto' } }],
    ['anthropic', { anthropic: { thinking: { type: 'enabled', budgetTokens: 24576 } } }],
    ['google', { google: { thinkingConfig: { thinkingBudget: 24576, includeThoughts: true } } }],
    ['amazon-bedrock', { amazonBedrock: { reasoningConfig: { type: 'enabled', budgetTokens: 24576 } } }],
    ['azure', { azure: { store: false, reasoningEffort: 'high', forceReasoning: true, reasoningSummary: 'auto' } }],
    ['mistral', { mistral: { reasoningEffort: 'high' } }],
    ['groq', { groq: { reasoningEffort: 'high', reasoningFormat: 'parsed' } }],
    ['xai', { xai: { reasoningEffort: 'high' } }],
    ['deepseek', { deepseek: { thinking: { type: 'enabled' }, reasoningEffort: 'max' } }],
    ['openai-compatible', { openaiCompatible: { reasoningEffort: 'high' } }],
  ])('maps reasoning "high" to %s\'s own option', (provider, expected) => {
    expect(createAgentModel(validateAgentConfig(agentOn(provider, { reasoning: 'high' }))).providerOptions).toEqual(expected);
  });

  it('passes the call settings on, and the account\'s providerOptions win, deep-merged over ours', () => {
    const model = createAgentModel(
      validateAgentConfig(agentOn('anthropic', { reasoning: 'low', temperature: 0.3, maxOutputTokens: 500, stopSequences: ['END'], seed: 7, maxRetries: 0, timeoutMs: 30_000, providerOptions: { anthropic: { thinking: { budgetTokens: 4000 }, sendReasoning: true } } })),
    );
    expect(model.callSettings).toEqual({ temperature: 0.3, maxOutputTokens: 500, stopSequences: ['END'], seed: 7, maxRetries: 0, timeout: 30_000 });
    expect(model.providerOptions).toEqual({ anthropic: { thinking: { type: 'enabled', budgetTokens: 4000 }, sendReasoning: true } });
  });
});
