import { describe, expect, it } from 'vitest';
import type { ConversationState } from '../conversations/conversation.js';
import { applyApprovalAnswers, closeInterruptedApprovals, denyOpenApprovals, recordApprovalRequests } from './approvals.js';

function conversationWithTwoRequests(): ConversationState {
  const state: ConversationState = { accountId: 'a', agentId: 'g', conversationKey: 'k', messages: [], approvals: [], createdAt: '', updatedAt: '' };
  recordApprovalRequests(
    state,
    [
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'alphaSearch', input: { query: 'one' } },
          { type: 'tool-approval-request', approvalId: 'p1', toolCallId: 'c1' },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'alphaSearch', input: { query: 'two' } },
          { type: 'tool-approval-request', approvalId: 'p2', toolCallId: 'c2' },
        ],
      },
    ],
    't1',
    'now',
  );
  return state;
}

describe('approvals', () => {
  it('records requests with their tool and input', () => {
    expect(conversationWithTwoRequests().approvals.map(({ approvalId, toolName, input, status }) => ({ approvalId, toolName, input, status }))).toEqual([
      { approvalId: 'p1', toolName: 'alphaSearch', input: { query: 'one' }, status: 'pending' },
      { approvalId: 'p2', toolName: 'alphaSearch', input: { query: 'two' }, status: 'pending' },
    ]);
  });

  it('waits for every answer of the step, then submits them in one tool message', () => {
    const state = conversationWithTwoRequests();
    expect(applyApprovalAnswers(state, [{ approvalId: 'p1', approved: true }], 'now')).toBeUndefined();
    expect(applyApprovalAnswers(state, [{ approvalId: 'p2', approved: false, reason: 'no' }], 'now')).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-approval-response', approvalId: 'p1', approved: true },
        { type: 'tool-approval-response', approvalId: 'p2', approved: false, reason: 'no' },
      ],
    });
    expect(state.approvals.every((approval) => approval.submitted)).toBe(true);
  });

  it('refuses unknown (400), repeated (409) and duplicated answers, changing nothing', () => {
    const state = conversationWithTwoRequests();
    expect(() => applyApprovalAnswers(state, [{ approvalId: 'nope', approved: true }], 'now')).toThrow('was never issued');
    expect(() => applyApprovalAnswers(state, [{ approvalId: 'p1', approved: true }, { approvalId: 'p1', approved: false }], 'now')).toThrow('answered twice');
    expect(state.approvals.every((approval) => approval.status === 'pending')).toBe(true);
    applyApprovalAnswers(state, [{ approvalId: 'p1', approved: true }], 'now');
    expect(() => applyApprovalAnswers(state, [{ approvalId: 'p1', approved: true }], 'now')).toThrow(expect.objectContaining({ status: 409 }));
  });

  it('denies open approvals as tool results the model reads as execution-denied', () => {
    const state = conversationWithTwoRequests();
    const denied = denyOpenApprovals(state, () => 'channels cannot approve', 't2', 'now');
    expect(denied).toHaveLength(2);
    expect(state.messages.at(-1)?.message).toMatchObject({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', output: { type: 'execution-denied', reason: 'channels cannot approve' } },
        { type: 'tool-result', toolCallId: 'c2', output: { type: 'execution-denied' } },
      ],
    });
    expect(denyOpenApprovals(state, () => 'again', 't3', 'now')).toEqual([]);
  });

  it('closes approvals whose answers were handed over but whose turn never finished, without running them', () => {
    const state = conversationWithTwoRequests();
    const message = applyApprovalAnswers(state, [{ approvalId: 'p1', approved: true }, { approvalId: 'p2', approved: false }], 'now')!;
    state.messages.push({ message, turnId: 't1', createdAt: 'now' });
    expect(closeInterruptedApprovals(state, 't2', 'later')).toBe(true);
    expect(state.messages.at(-1)?.message).toMatchObject({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', output: { type: 'error-text' } },
        { type: 'tool-result', toolCallId: 'c2', output: { type: 'execution-denied' } },
      ],
    });
    expect(closeInterruptedApprovals(state, 't3', 'later')).toBe(false);
  });

  it('closes interrupted approvals when a summary marker was appended after the answers', () => {
    const state = conversationWithTwoRequests();
    const message = applyApprovalAnswers(state, [{ approvalId: 'p1', approved: true }, { approvalId: 'p2', approved: false }], 'now')!;
    state.messages.push({ message, turnId: 't1', createdAt: 'now' });
    // A compaction before the model call that failed: its marker is the last stored entry.
    state.messages.push({ message: { role: 'user', content: 'summary' }, turnId: 't1', createdAt: 'now', compaction: { summarizedThrough: 1, trigger: 'threshold', tokensBefore: 100, tokensAfter: 50 } });
    expect(closeInterruptedApprovals(state, 't2', 'later')).toBe(true);
    expect(state.messages.at(-1)?.message).toMatchObject({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', output: { type: 'error-text' } }, { type: 'tool-result', toolCallId: 'c2' }] });
    expect(closeInterruptedApprovals(state, 't3', 'later')).toBe(false);
  });
});
