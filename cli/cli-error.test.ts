import { describe, expect, it } from 'vitest';
import { ApiError, CliError, UsageError, describeError } from './cli-error.js';

describe('describeError', () => {
  it('shows an API error with its code and HTTP status', () => {
    expect(describeError(new ApiError(404, 'not_found', 'Agent not found.'))).toEqual({
      line: 'harness: Agent not found. (not_found, HTTP 404)',
      exitCode: 1,
    });
  });

  it('uses exit code 2 for usage errors', () => {
    expect(describeError(new UsageError('bad flag'))).toEqual({ line: 'harness: bad flag', exitCode: 2 });
  });

  it('keeps a CLI error exit code', () => {
    expect(describeError(new CliError('nope', { exitCode: 3 })).exitCode).toBe(3);
  });

  it('shows unexpected errors as one line with exit code 1', () => {
    expect(describeError(new Error('boom'))).toEqual({ line: 'harness: boom', exitCode: 1 });
    expect(describeError('text')).toEqual({ line: 'harness: text', exitCode: 1 });
  });
});
