import type { AsyncToolResult, DispatchGroup } from '../async-tool-result.js';

/** The fixed clock of async-tool tests. */
export const now = '2026-01-01T00:00:00.000Z';
const delivery = { transport: 'async' as const, eventId: 'evt_parent' };

/** One async tool call of a group, as stored. */
export function asyncResultRow(groupId: string, index: number, execution: AsyncToolResult['execution'], status: AsyncToolResult['status'] = 'processing'): AsyncToolResult {
  return {
    kind: 'result',
    resultId: `res_${groupId}_${index}`,
    groupId,
    accountId: 'acc',
    agentId: 'agent',
    conversationKey: 'k',
    turnId: 't',
    toolCallId: `call-${index}`,
    toolName: 'tool',
    execution,
    status,
    delivery,
    asyncResultEventId: 'evt_parent',
    createdAt: now,
    updatedAt: now,
  };
}

/** A dispatch group holding `resultIds`, sealed unless told otherwise. */
export function dispatchGroup(groupId: string, resultIds: string[], overrides: Partial<DispatchGroup> = {}): DispatchGroup {
  return { kind: 'group', groupId, accountId: 'acc', agentId: 'agent', conversationKey: 'k', turnId: 't', resultIds, sealed: true, settledCount: 0, delivery, createdAt: now, updatedAt: now, ...overrides };
}
