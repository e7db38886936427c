import { describe, expect, it } from 'vitest';
import { formatAsyncSettled, formatToolCall, summarizeOutput, truncate } from './tool-line.js';

describe('tool lines', () => {
  it('shows a search call with its result count', () => {
    expect(formatToolCall({ kind: 'tool-call', toolCallId: 't', toolName: 'alphaSearch', input: { query: 'cats' }, state: 'output-available', output: { results: [1, 2, 3] } })).toBe(
      '⚙ alphaSearch {"query":"cats"} → 3 results',
    );
  });

  it('shows running, awaiting approval, denied and failed calls', () => {
    const call = { kind: 'tool-call' as const, toolCallId: 't', toolName: 'x', input: {} };
    expect(formatToolCall({ ...call, state: 'input-available' })).toBe('⚙ x {} → …');
    expect(formatToolCall({ ...call, state: 'approval-requested' })).toBe('⚙ x {} → awaiting approval');
    expect(formatToolCall({ ...call, state: 'output-denied', approval: { approvalId: 'a', approved: false, reason: 'no' } })).toBe('⚙ x {} → denied: no');
    expect(formatToolCall({ ...call, state: 'output-error', errorText: 'HTTP 503\nbody' })).toBe('⚙ x {} → error: HTTP 503 body');
  });

  it('truncates long inputs and outputs on one line', () => {
    expect(truncate('a'.repeat(10), 5)).toBe('aaaa…');
    expect(summarizeOutput({ text: 'b'.repeat(200) })).toHaveLength(60);
    expect(summarizeOutput(['a', 'b'])).toBe('2 items');
    expect(summarizeOutput({ results: [1] })).toBe('1 result');
  });

  it('shows a settled async tool', () => {
    expect(formatAsyncSettled({ kind: 'async-settled', toolName: 'test_async', status: 'completed', response: { waited: 5 } })).toBe('⏱ test_async completed → {"waited":5}');
    expect(formatAsyncSettled({ kind: 'async-settled', toolName: 'test_async', status: 'failed', error: 'timeout' })).toBe('⏱ test_async failed: timeout');
  });
});
