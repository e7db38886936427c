import { describe, expect, it } from 'vitest';
import { toolCells, toolRows } from './tool-rows.js';

describe('toolRows', () => {
  it('applies the defaults: present means enabled, execution same-invocation', () => {
    expect(toolRows({ tools: { test_async: {} } })).toEqual([
      { tool: 'test_async', enabled: true, async: false, execution: 'same-invocation', needsApproval: false, keySet: false },
    ]);
  });

  it('reads enabled: false, async, execution, approval and a redacted key', () => {
    const rows = toolRows({
      tools: {
        alphaSearch: { enabled: false, apiKey: { redacted: true, last4: 'abcd' }, maxResults: 3 },
        test_external_async: { async: true, execution: 'external-dispatch', needsApproval: true, completionBearerToken: { redacted: true } },
        alphaExtract: { apiKey: { redacted: true } },
      },
    });
    expect(rows.map(toolCells)).toEqual([
      ['alphaSearch', 'no', 'no', 'same-invocation', 'no', 'set'],
      ['test_external_async', 'yes', 'yes', 'external-dispatch', 'yes', '-'],
      ['alphaExtract', 'yes', 'no', 'same-invocation', 'no', 'set'],
    ]);
    expect(rows[0]?.keyLast4).toBe('abcd');
    expect(rows[2]?.keyLast4).toBeUndefined();
  });

  it('returns no rows for a config without tools', () => {
    expect(toolRows({})).toEqual([]);
    expect(toolRows(undefined)).toEqual([]);
    expect(toolRows({ tools: [] })).toEqual([]);
  });
});
