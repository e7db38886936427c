import { afterEach, describe, expect, it } from 'vitest';
import { openTestStorage } from '../../../test/support/test-storage.js';
import { temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';
import type { Agent, StoredAgent } from '../agents/agent.js';
import { Agents } from '../agents/agents.js';
import { AgentsRepository } from '../agents/agents-repository.js';
import { AsyncSettlement } from '../async-tools/async-settlement.js';
import { type AsyncTableRow, groupKey } from '../async-tools/async-tool-result.js';
import { AsyncToolResultsRepository } from '../async-tools/async-tool-results-repository.js';
import { asyncResultRow, dispatchGroup, now } from '../async-tools/test-support/async-rows.js';
import type { ConversationState } from '../conversations/conversation.js';
import { type ConversationRow, ConversationsRepository } from '../conversations/conversations-repository.js';
import { KeyedMutex } from '../coordination/keyed-mutex.js';
import { InMemoryRunningTurns } from '../coordination/running-turns.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { silentLogger } from '../logger.js';
import { ConfigCipher } from '../secrets/config-encryption.js';
import type { Storage } from '../storage/table-store.js';
import { RunCancellation } from './run-cancellation.js';
import type { AsyncRequestRecord } from './status-row.js';
import { AsyncRequestTransitions, cancelledReason } from './status-row-transitions.js';
import { AsyncRequestsRepository } from './status-rows-repository.js';

const agent: Agent = { accountId: 'acc', agentId: 'agent', config: {} as Agent['config'], createdAt: now, updatedAt: now };
const row = (eventId: string, status: AsyncRequestRecord['status'], extra: Partial<AsyncRequestRecord> = {}): AsyncRequestRecord => ({
  eventId,
  accountId: 'acc',
  agentId: 'agent',
  conversationKey: 'k',
  transport: 'async',
  status,
  createdAt: now,
  updatedAt: now,
  ...extra,
});

describe('RunCancellation', () => {
  const folder = temporaryFolderPerTest();
  let storage: Storage | undefined;
  afterEach(async () => {
    await storage?.close();
    storage = undefined;
  });

  async function setUp() {
    storage = await openTestStorage(folder.path);
    const requests = new AsyncRequestsRepository(storage.table<AsyncRequestRecord>('events'));
    const asyncResults = new AsyncToolResultsRepository(storage.table<AsyncTableRow>('async'));
    const conversations = new ConversationsRepository(storage.table<ConversationRow>('conversations'));
    const agentsRepository = new AgentsRepository(storage.table<StoredAgent>('agents'), new ConfigCipher('config secret'));
    await agentsRepository.write(agent, null);
    const runningTurns = new InMemoryRunningTurns();
    const cancellation = new RunCancellation({
      runningTurns,
      requests,
      transitions: new AsyncRequestTransitions(requests),
      conversations,
      settlement: new AsyncSettlement(asyncResults),
      agents: new Agents(agentsRepository),
      locks: new KeyedMutex(),
      logger: silentLogger,
      now: () => new Date(now),
    });
    return { requests, asyncResults, conversations, runningTurns, cancellation };
  }

  it('stops a running turn through the registry, by its event or by its conversation', async () => {
    const { runningTurns, cancellation } = await setUp();
    const aborted: string[] = [];
    const turn = { turnId: 'turn_1', eventId: 'evt_1', accountId: 'acc', agentId: 'agent', conversationKey: 'k' };
    runningTurns.register(turn, () => aborted.push('by event'));
    expect(await cancellation.cancelEvent('acc', 'evt_1')).toEqual({ cancelled: true, conversationKey: 'k', eventId: 'evt_1', turnId: 'turn_1', state: 'running', closedApprovals: [], closedAsyncTools: [] });
    runningTurns.register(turn, () => aborted.push('by conversation'));
    expect(await cancellation.cancelConversation('acc', 'agent', 'k')).toMatchObject({ state: 'running', turnId: 'turn_1' });
    expect(aborted).toEqual(['by event', 'by conversation']);
  });

  it('cancels a queued /async request before it starts: its row ends cancelled', async () => {
    const { requests, cancellation } = await setUp();
    await requests.create(row('evt_1', 'queued', { input: { kind: 'user', message: { role: 'user', content: 'hi' } } }));
    expect(await cancellation.cancelEvent('acc', 'evt_1')).toEqual({ cancelled: true, conversationKey: 'k', eventId: 'evt_1', state: 'queued', closedApprovals: [], closedAsyncTools: [] });
    expect(await requests.get('evt_1')).toMatchObject({ status: 'cancelled', error: cancelledReason });
  });

  it('closes a run that waits for async tools: its processing calls fail, its group is closed, its row ends cancelled', async () => {
    const { requests, asyncResults, cancellation } = await setUp();
    const groupId = 'grp_aaaaaaaaaaaaaaaaaaaaaaaa';
    const resultId = `res_${groupId}_0`;
    const delivery = { transport: 'async' as const, eventId: 'evt_1' };
    await asyncResults.write(groupId, [
      { type: 'put', key: resultId, value: { ...asyncResultRow(groupId, 0, 'external-dispatch', 'processing'), delivery } },
      { type: 'put', key: groupKey, value: dispatchGroup(groupId, [resultId], { delivery }) },
    ]);
    await requests.create(row('evt_1', 'waiting_async_tools', { pendingAsyncTools: [{ resultId, toolCallId: 'call-0', toolName: 'tool', execution: 'external-dispatch', status: 'processing' }] }));

    expect(await cancellation.cancelEvent('acc', 'evt_1')).toEqual({ cancelled: true, conversationKey: 'k', eventId: 'evt_1', state: 'waiting', closedApprovals: [], closedAsyncTools: [resultId] });
    const snapshot = await asyncResults.snapshot(groupId);
    expect(snapshot.group?.value.cancelledAt).toBeDefined();
    expect(snapshot.results.map((result) => [result.key, result.value.status, result.value.error])).toEqual([[resultId, 'failed', cancelledReason]]);
    expect((await requests.get('evt_1'))?.status).toBe('cancelled');
  });

  it('by conversation, finds the processing calls of the last turn past a summary marker written after it', async () => {
    const { asyncResults, conversations, cancellation } = await setUp();
    const groupId = 'grp_bbbbbbbbbbbbbbbbbbbbbbbb';
    const resultId = `res_${groupId}_0`;
    const delivery = { transport: 'sse' as const, eventId: 'evt_2' };
    await asyncResults.write(groupId, [
      { type: 'put', key: resultId, value: { ...asyncResultRow(groupId, 0, 'external-dispatch', 'processing'), delivery } },
      { type: 'put', key: groupKey, value: dispatchGroup(groupId, [resultId], { delivery }) },
    ]);
    const state: ConversationState = {
      accountId: 'acc',
      agentId: 'agent',
      conversationKey: 'k',
      messages: [
        { message: { role: 'user', content: 'order it' }, turnId: 'turn_1', createdAt: now },
        { message: { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call-0', toolName: 'tool', input: {} }] }, turnId: 'turn_1', createdAt: now },
        { message: { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-0', toolName: 'tool', output: { type: 'json', value: { resultId, status: 'processing' } } }] }, turnId: 'turn_1', createdAt: now },
        // POST .../compact while the run waits: the marker is written by a turn id of its own.
        { message: { role: 'user', content: 'summary' }, turnId: 'compact_1', createdAt: now, compaction: { summarizedThrough: 0, trigger: 'manual', tokensBefore: 10, tokensAfter: 10 } },
      ],
      approvals: [],
      createdAt: now,
      updatedAt: now,
    };
    await conversations.save(state, null);
    expect(await cancellation.cancelConversation('acc', 'agent', 'k')).toMatchObject({ state: 'waiting', closedAsyncTools: [resultId] });
    expect((await asyncResults.snapshot(groupId)).results.map((result) => result.value.status)).toEqual(['failed']);
  });

  it('closes a run that waits for an approval: the approval is denied in the conversation and the row ends cancelled', async () => {
    const { requests, conversations, cancellation } = await setUp();
    const pending = { approvalId: 'appr_1', toolCallId: 'call_1', toolName: 'delete_file', input: {} };
    const state: ConversationState = {
      accountId: 'acc',
      agentId: 'agent',
      conversationKey: 'k',
      messages: [{ message: { role: 'user', content: 'tidy up' }, turnId: 'turn_1', createdAt: now }],
      approvals: [{ ...pending, status: 'pending', submitted: false, turnId: 'turn_1', requestedAt: now, eventId: 'evt_1' }],
      createdAt: now,
      updatedAt: now,
    };
    await conversations.save(state, null);
    await requests.create(row('evt_1', 'awaiting_approval', { pendingApprovals: [pending] }));

    expect(await cancellation.cancelEvent('acc', 'evt_1')).toMatchObject({ state: 'waiting', closedApprovals: ['appr_1'], closedAsyncTools: [] });
    const stored = (await conversations.load('acc', 'agent', 'k', now)).state;
    expect(stored.approvals).toMatchObject([{ approvalId: 'appr_1', status: 'denied', submitted: true }]);
    expect(stored.messages.at(-1)?.message).toMatchObject({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', output: { type: 'execution-denied' } }] });
    expect((await requests.get('evt_1'))?.status).toBe('cancelled');
  });

  it('answers 409 when nothing runs or waits, and 404 for an event of another account', async () => {
    const { requests, cancellation } = await setUp();
    await requests.create(row('evt_done', 'completed'));
    await expect(cancellation.cancelEvent('acc', 'evt_done')).rejects.toBeInstanceOf(ConflictError);
    await expect(cancellation.cancelEvent('acc_other', 'evt_done')).rejects.toBeInstanceOf(NotFoundError);
    expect((await requests.get('evt_done'))?.status).toBe('completed');
  });
});
