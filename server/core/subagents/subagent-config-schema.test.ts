import { describe, expect, it } from 'vitest';
import { messageOf } from '../test-support/invalid-request-message.js';
import { validateSubagentConfig } from './subagent-config-schema.js';

describe('validateSubagentConfig', () => {
  it('defaults maxDepth to 2 and caps it at 5', () => {
    expect(validateSubagentConfig({ agents: { researcher: { description: 'Finds sources' } } })).toEqual({ agents: { researcher: { description: 'Finds sources' } }, maxDepth: 2 });
    expect(messageOf(() => validateSubagentConfig({ agents: {}, maxDepth: 6 }))).toBe('config.subagent.maxDepth must be an integer from 1 to 5');
    expect(messageOf(() => validateSubagentConfig({ agents: { researcher: {} } }))).toBe('config.subagent.agents.researcher.description must be a string');
    expect(messageOf(() => validateSubagentConfig({ agents: { 'bad id!': { description: 'x' } } }))).toBe('config.subagent.agents.bad id! is not a valid agent id');
  });
});
