import { describe, expect, it } from 'vitest';
import { validateAgentConfig } from '../agent-config/agent-config-schema.js';
import { checkAgentDestinations } from '../agent-config/agent-destinations.js';
import { OutboundPolicy } from '../outbound/outbound-policy.js';
import { collectSecretValues, redactSecrets, restoreRedactedSecrets } from '../secrets/redaction.js';
import { isToolOffered, toolNeedsApproval, validateMcpConfig } from './mcp-config-schema.js';

const url = 'https://mcp.example.com/mcp';

describe('config.mcp', () => {
  it('accepts the documented shape and keeps it', () => {
    const config = validateAgentConfig({ mcp: { docs: { url, headers: { Authorization: 'Bearer abc' }, tools: { allow: ['search'], deny: ['fetch'] }, needsApproval: { search: true } } } });
    expect(config.mcp?.docs).toEqual({ url, headers: { Authorization: 'Bearer abc' }, tools: { allow: ['search'], deny: ['fetch'] }, needsApproval: { search: true } });
  });

  it('refuses names that clash or cannot prefix a tool, naming the field', () => {
    expect(() => validateMcpConfig({ grep: { url } })).toThrow('config.mcp.grep: "grep" clashes with the built-in tool of that name');
    expect(() => validateMcpConfig({ alphaSearch: { url } })).toThrow('clashes');
    expect(() => validateMcpConfig({ 'two__parts': { url } })).toThrow('config.mcp.two__parts: a server name must be');
    expect(() => validateMcpConfig({ trailing_: { url } })).toThrow('config.mcp.trailing_');
    expect(() => validateMcpConfig({ '9lives': { url } })).toThrow('config.mcp.9lives');
    expect(() => validateMcpConfig({ docs: { url, needsApproval: { ['x'.repeat(70)]: true } } })).toThrow('is not 1-64 characters');
    expect(() => validateMcpConfig({ docs: {} })).toThrow('config.mcp.docs.url must be an absolute http(s) URL');
    expect(() => validateMcpConfig({ docs: { url, needsApproval: 'yes' } })).toThrow('config.mcp.docs.needsApproval must be a boolean or an object');
    expect(() => validateMcpConfig([])).toThrow('config.mcp must be an object');
  });

  it('filters by allow and deny, and gates by needsApproval', () => {
    const server = { url, tools: { allow: ['a', 'b'], deny: ['b'] }, needsApproval: { a: true } };
    expect(['a', 'b', 'c'].filter((tool) => isToolOffered(server, tool))).toEqual(['a']);
    expect(isToolOffered({ url, tools: { deny: ['x'] } }, 'y')).toBe(true);
    expect(toolNeedsApproval(server, 'a')).toBe(true);
    expect(toolNeedsApproval(server, 'c')).toBe(false);
    expect(toolNeedsApproval({ url, needsApproval: true }, 'anything')).toBe(true);
  });

  it('treats every header value as a secret: redacted, restored from the redacted form, collected for scrubbing', () => {
    const stored = { mcp: { docs: { url, headers: { Authorization: 'Bearer secret-value-1234', 'X-Api-Key': 'short' } } } };
    const redacted = redactSecrets(stored);
    expect(redacted.mcp.docs.headers).toEqual({ Authorization: { redacted: true, last4: '1234' }, 'X-Api-Key': { redacted: true } });
    expect(redacted.mcp.docs.url).toBe(url);
    expect(restoreRedactedSecrets(redacted, stored)).toEqual(stored);
    expect(collectSecretValues(stored)).toEqual(['Bearer secret-value-1234', 'short']);
  });

  it('puts url under the outbound policy when the config is written', () => {
    const policy = new OutboundPolicy({ mode: 'public', allow: [] });
    expect(() => checkAgentDestinations(policy, validateAgentConfig({ mcp: { local: { url: 'http://127.0.0.1:4600/mcp' } } }))).toThrow('config.mcp.local.url points at 127.0.0.1');
    expect(() => checkAgentDestinations(policy, validateAgentConfig({ mcp: { docs: { url } } }))).not.toThrow();
  });
});
