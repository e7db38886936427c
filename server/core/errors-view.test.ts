import { describe, expect, it } from 'vitest';
import { ConversationBusyError, NotFoundError, RateLimitedError, UpstreamError } from './errors.js';
import { internalErrorMessage, viewError } from './errors-view.js';

describe('viewError', () => {
  it('answers a domain error with its status, code and message', () => {
    expect(viewError(new NotFoundError('No agent "x".'))).toEqual({ status: 404, code: 'not_found', message: 'No agent "x".', unexpected: false });
    expect(viewError(new UpstreamError('The model failed.'))).toEqual({ status: 502, code: 'upstream_error', message: 'The model failed.', unexpected: false });
  });

  it('carries when to retry a rate limit, and the details an error names (the running eventId of a busy conversation)', () => {
    expect(viewError(new RateLimitedError('Slow down.', 7))).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 7 });
    expect(viewError(new ConversationBusyError('c1', 'evt_1'))).toMatchObject({ status: 409, code: 'conversation_busy', details: { eventId: 'evt_1' } });
  });

  it('answers anything else as internal, with none of its own message', () => {
    const view = viewError(new Error('password=hunter2 at db.ts:12'));
    expect(view).toEqual({ status: 500, code: 'internal', message: internalErrorMessage, unexpected: true });
    expect(viewError('thrown string')).toEqual(view);
  });
});
