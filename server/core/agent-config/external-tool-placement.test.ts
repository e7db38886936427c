import { describe, expect, it } from 'vitest';
import { validateAgentConfigSections } from './agent-config-sections.js';

describe('no external tool configuration under workspace, skills or subagent', () => {
  it.each([
    [{ workspace: { notes: { path: 'notes', permissionMode: 'auto', tools: {} } } }, 'config.workspace.notes.tools'],
    [{ workspace: { notes: { path: 'notes', permissionMode: 'auto', sandbox: { apiKey: 'k' } } } }, 'config.workspace.notes.sandbox.apiKey'],
    [{ workspace: { test_async: { path: 'notes', permissionMode: 'auto' } } }, 'config.workspace.test_async'],
    [{ skills: { review: { description: 'd', instructions: 'i', enabled: true } } }, 'config.skills.review.enabled'],
    [{ skills: { alphaSearch: { maxResults: 2 } } }, 'config.skills.alphaSearch'],
    [{ subagent: { agents: {}, tools: { alphaSearch: {} } } }, 'config.subagent.tools'],
    [{ subagent: { agents: { helper: { description: 'd', async: true } } } }, 'config.subagent.agents.helper.async'],
  ])('refuses %j naming %s', (config, where) => {
    expect(() => validateAgentConfigSections(config)).toThrow(`${where} is not allowed: external tool configuration belongs only under config.tools`);
  });

  it('accepts the shapes themselves, filling defaults', () => {
    expect(validateAgentConfigSections({ sandbox: {}, subagent: { agents: { alphaSearch: { description: 'an agent named like a tool' } } } })).toEqual({
      sandbox: { timeoutMs: 30_000, maxOutputBytes: 65_536, environment: [], network: false },
      subagent: { agents: { alphaSearch: { description: 'an agent named like a tool' } }, maxDepth: 2 },
    });
  });
});
