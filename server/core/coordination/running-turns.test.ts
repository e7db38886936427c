import { describe, expect, it } from 'vitest';
import { InMemoryRunningTurns } from './running-turns.js';

const turn = { turnId: 'turn_1', eventId: 'evt_1', accountId: 'acc', agentId: 'agent', conversationKey: 'k' };

describe('InMemoryRunningTurns', () => {
  it('finds a running turn by event or by conversation, only for its own account, and aborts it', async () => {
    const running = new InMemoryRunningTurns();
    const aborted: string[] = [];
    const unregister = running.register(turn, () => aborted.push(turn.turnId));
    expect(await running.requestCancel({ accountId: 'other', eventId: 'evt_1' })).toBeUndefined();
    expect(await running.requestCancel({ accountId: 'acc', agentId: 'agent', conversationKey: 'other' })).toBeUndefined();
    expect(aborted).toEqual([]);
    expect(await running.requestCancel({ accountId: 'acc', agentId: 'agent', conversationKey: 'k' })).toEqual(turn);
    expect(await running.requestCancel({ accountId: 'acc', eventId: 'evt_1' })).toEqual(turn);
    expect(aborted).toEqual(['turn_1', 'turn_1']);
    unregister();
    expect(await running.requestCancel({ accountId: 'acc', eventId: 'evt_1' })).toBeUndefined();
    expect(running.abortLocal('turn_1')).toBe(false);
  });
});
