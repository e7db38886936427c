import { describe, expect, it } from 'vitest';
import type { DispatchGroup } from './async-tool-result.js';
import { claimContinuation, mayClaimContinuation } from './continuation-claim.js';

const sealedGroup: DispatchGroup = {
  kind: 'group',
  groupId: 'grp_1',
  accountId: 'acc_1',
  agentId: 'support',
  conversationKey: 'c1',
  turnId: 'turn_1',
  resultIds: ['res_grp_1_a', 'res_grp_1_b'],
  sealed: true,
  sealedAt: '2025-01-01T00:00:00.000Z',
  settledCount: 2,
  delivery: { transport: 'async', eventId: 'evt_1' },
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};

describe('the continuation claim rule', () => {
  it('claims a sealed group with external calls, none pending, not cancelled and not yet claimed', () => {
    expect(mayClaimContinuation(sealedGroup, 0)).toBe(true);
    const { group, claimed } = claimContinuation(sealedGroup, 0, '2025-01-01T00:01:00.000Z');
    expect(claimed).toBe(true);
    expect(group.continuation).toEqual({ continuationEventId: expect.stringMatching(/^evt_cont_[0-9a-f-]{36}$/), state: 'claimed', claimedAt: '2025-01-01T00:01:00.000Z' });
    expect(group.updatedAt).toBe('2025-01-01T00:01:00.000Z');
    // Every claim gets its own continuation event id (the de-duplication key of its run).
    expect(claimContinuation(sealedGroup, 0, 'now').group.continuation!.continuationEventId).not.toBe(group.continuation!.continuationEventId);
  });

  it.each([
    ['not sealed', { sealed: false }, 0],
    ['a call still pending', {}, 1],
    ['already claimed', { continuation: { continuationEventId: 'evt_cont_x', state: 'claimed' as const, claimedAt: 'then' } }, 0],
    ['already done', { continuation: { continuationEventId: 'evt_cont_x', state: 'done' as const, claimedAt: 'then', finishedAt: 'then' } }, 0],
    ['cancelled', { cancelledAt: '2025-01-01T00:00:30.000Z' }, 0],
    ['no external calls', { resultIds: [] }, 0],
  ])('claims nothing when the group is %s, and leaves it as it was', (_case, change: Partial<DispatchGroup>, pendingCount: number) => {
    const group = { ...sealedGroup, ...change };
    expect(mayClaimContinuation(group, pendingCount)).toBe(false);
    const answer = claimContinuation(group, pendingCount, 'now');
    expect(answer.claimed).toBe(false);
    expect(answer.group).toBe(group);
  });
});
