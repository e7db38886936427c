import { describe, expect, it } from 'vitest';
import { validateAgentConfig } from './agent-config-schema.js';
import { agentDestinations, checkAgentDestinations } from './agent-destinations.js';
import { OutboundPolicy } from '../outbound/outbound-policy.js';

const gateway = 'http://10.0.0.5:8080';

describe('checkAgentDestinations', () => {
  it('gives each URL of a config its kind', () => {
    const config = validateAgentConfig({
      provider: { openai: { apiKey: 'sk-test', model: 'm', baseURL: `${gateway}/v1` } },
      mcp: { internal: { url: `${gateway}/mcp` } },
      webhooks: { completion: { url: `${gateway}/hook`, secret: 'a-webhook-secret' } },
    });
    expect(agentDestinations(config).map(({ field, kind }) => [field, kind])).toEqual([
      ['config.provider.openai.baseURL', 'model'],
      ['config.mcp.internal.url', 'mcp'],
      ['config.webhooks.completion.url', 'webhooks'],
    ]);
  });

  it('refuses an MCP server or a webhook at a gateway the operator allowed for the model only', () => {
    const policy = new OutboundPolicy({ mode: 'public', allow: [], allowByKind: { model: [{ address: '10.0.0.5', port: 8080 }] } });
    const model = { provider: { openai: { apiKey: 'sk-test', model: 'm', baseURL: `${gateway}/v1` } } };
    expect(() => checkAgentDestinations(policy, validateAgentConfig(model))).not.toThrow();
    expect(() => checkAgentDestinations(policy, validateAgentConfig({ ...model, mcp: { internal: { url: `${gateway}/admin` } } }))).toThrow('config.mcp.internal.url points at 10.0.0.5, a private address');
    expect(() => checkAgentDestinations(policy, validateAgentConfig({ webhooks: { completion: { url: `${gateway}/hook`, secret: 'a-webhook-secret' } } }))).toThrow(
      'config.webhooks.completion.url points at 10.0.0.5',
    );
    void policy.close();
  });
});
