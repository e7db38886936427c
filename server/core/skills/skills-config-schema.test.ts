import { describe, expect, it } from 'vitest';
import { messageOf } from '../test-support/invalid-request-message.js';
import { validateSkillsConfig } from './skills-config-schema.js';

describe('validateSkillsConfig', () => {
  it('accepts inline and file skills, one or the other', () => {
    expect(validateSkillsConfig({ review: { description: 'Code review', instructions: 'Check tests.' }, style: { description: 'House style', file: 'skills/style.md' } })).toEqual({
      review: { description: 'Code review', instructions: 'Check tests.' },
      style: { description: 'House style', file: 'skills/style.md' },
    });
    expect(messageOf(() => validateSkillsConfig({ review: { description: 'x', instructions: 'y', file: 'z' } }))).toBe('config.skills.review must have either instructions or file, not both');
    expect(messageOf(() => validateSkillsConfig({ review: { description: 'x' } }))).toMatch(/^config\.skills\.review must have instructions/);
    expect(messageOf(() => validateSkillsConfig({ review: { description: 'x', file: '../etc/passwd' } }))).toMatch(/^config\.skills\.review\.file must be a relative path/);
    expect(messageOf(() => validateSkillsConfig({ review: { instructions: 'y' } }))).toBe('config.skills.review.description must be a string');
  });
});
