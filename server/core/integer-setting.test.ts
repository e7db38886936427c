import { describe, expect, it } from 'vitest';
import { integerSettingGroup } from './integer-setting.js';

describe('integerSettingGroup', () => {
  const group = integerSettingGroup({ timeoutMs: ['HARNESS_X_TIMEOUT_MS', 1_000, 10, 60_000], retries: ['HARNESS_X_RETRIES', 3, 0, 10] });

  it('gives the defaults for an empty environment, and reads each variable over its default', () => {
    expect(group.defaults).toEqual({ timeoutMs: 1_000, retries: 3 });
    expect(group.settings({ HARNESS_X_RETRIES: ' 7 ' })).toEqual({ timeoutMs: 1_000, retries: 7 });
  });

  it('stops on a value out of range or not a whole number, naming the variable and the range', () => {
    expect(() => group.settings({ HARNESS_X_TIMEOUT_MS: '5' })).toThrow('HARNESS_X_TIMEOUT_MS must be an integer from 10 to 60000 (got "5").');
    expect(() => group.settings({ HARNESS_X_RETRIES: '1.5' })).toThrow(/HARNESS_X_RETRIES must be an integer from 0 to 10/);
  });
});
