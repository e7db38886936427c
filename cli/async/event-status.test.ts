import { describe, expect, it } from 'vitest';
import { errorText, formatPendingApprovals, formatPendingAsyncTools, isFinalStatus, statusLabel } from './event-status.js';

describe('event status words', () => {
  it('stops --wait at completed, failed and awaiting_approval only', () => {
    expect(['queued', 'processing', 'waiting_async_tools', 'completed', 'failed', 'awaiting_approval'].filter(isFinalStatus)).toEqual(['completed', 'failed', 'awaiting_approval']);
  });

  it('labels each status', () => {
    expect(statusLabel({ status: 'processing' })).toBe('running');
    expect(statusLabel({ status: 'waiting_async_tools' })).toBe('waiting for async tools');
    expect(statusLabel({ status: 'waiting_async_tools', pendingAsyncTools: [{ resultId: 'a' }] })).toBe('waiting for 1 async tool');
    expect(statusLabel({ status: 'awaiting_approval', pendingApprovals: [{ approvalId: 'a' }, { approvalId: 'b' }] })).toBe('waiting for 2 approvals');
    expect(statusLabel({ status: 'something_new' })).toBe('something_new');
  });

  it('reads an error as a string, a {message} or JSON', () => {
    expect(errorText('boom')).toBe('boom');
    expect(errorText({ code: 'x', message: 'boom' })).toBe('boom');
    expect(errorText({ code: 'x' })).toBe('{"code":"x"}');
    expect(errorText(undefined)).toBe('no reason given');
  });

  it('formats pending approvals and async tools', () => {
    expect(formatPendingApprovals([{ approvalId: 'a1', toolName: 'rm', input: { path: 'x'.repeat(100) } }])).toMatch(/^ {2}a1 {2}rm \{"path":"x+…$/);
    expect(formatPendingAsyncTools([{ resultId: 'r1', toolName: 't' }, { resultId: 'r2' }])).toBe('r1 (t), r2');
  });
});
