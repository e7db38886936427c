import { describe, expect, it } from 'vitest';
import { temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';
import { silentLogger } from '../logger.js';
import { openTestStorage } from '../../../test/support/test-storage.js';
import type { AsyncRequestRecord } from './status-row.js';
import { AsyncRequestTransitions } from './status-row-transitions.js';
import { AsyncRequestsRepository } from './status-rows-repository.js';
import { recoverAsyncWork } from './async-recovery.js';
import { type AsyncTableRow, groupKey } from '../async-tools/async-tool-result.js';
import { AsyncToolResultsRepository } from '../async-tools/async-tool-results-repository.js';
import { AsyncSettlement } from '../async-tools/async-settlement.js';
import { AsyncToolCompletions } from '../async-tools/async-tool-completions.js';
import { ContinuationDispatcher } from './continuation-dispatcher.js';
import { asyncResultRow, dispatchGroup, now } from '../async-tools/test-support/async-rows.js';

describe('recoverAsyncWork', () => {
  const folder = temporaryFolderPerTest();

  it('fails orphaned same-invocation rows, resumes claimed and ready continuations, requeues and fails events', async () => {
    const storage = await openTestStorage(folder.path);
    const repository = new AsyncToolResultsRepository(storage.table<AsyncTableRow>('async'));
    const events = new AsyncRequestsRepository(storage.table<AsyncRequestRecord>('events'));
    const settlement = new AsyncSettlement(repository);
    const dispatched: string[] = [];
    const dispatcher = new ContinuationDispatcher({ push: (job) => void dispatched.push(job.kind === 'continuation' ? job.groupId : job.eventId) }, silentLogger);
    const requeued: string[] = [];
    const enqueue = (job: { eventId: string }) => requeued.push(job.eventId);

    const inline = 'grp_aaaaaaaaaaaaaaaaaaaaaaaa';
    await repository.write(inline, [
      { type: 'put', key: `res_${inline}_0`, value: asyncResultRow(inline, 0, 'same-invocation', 'processing') },
      { type: 'put', key: groupKey, value: dispatchGroup(inline, [], { sealed: false }) },
    ]);
    const claimed = 'grp_bbbbbbbbbbbbbbbbbbbbbbbb';
    await repository.write(claimed, [
      { type: 'put', key: `res_${claimed}_0`, value: asyncResultRow(claimed, 0, 'external-dispatch', 'completed') },
      { type: 'put', key: groupKey, value: dispatchGroup(claimed, [`res_${claimed}_0`], { continuation: { continuationEventId: 'evt_c', state: 'claimed', claimedAt: now } }) },
    ]);
    const ready = 'grp_cccccccccccccccccccccccc';
    await repository.write(ready, [
      { type: 'put', key: `res_${ready}_0`, value: asyncResultRow(ready, 0, 'external-dispatch', 'failed') },
      { type: 'put', key: groupKey, value: dispatchGroup(ready, [`res_${ready}_0`]) },
    ]);
    const waiting = 'grp_dddddddddddddddddddddddd';
    await repository.write(waiting, [
      { type: 'put', key: `res_${waiting}_0`, value: asyncResultRow(waiting, 0, 'external-dispatch', 'processing') },
      { type: 'put', key: groupKey, value: dispatchGroup(waiting, [`res_${waiting}_0`]) },
    ]);
    const base = { accountId: 'acc', agentId: 'agent', conversationKey: 'k', transport: 'async' as const, createdAt: now, updatedAt: now };
    await events.create({ ...base, eventId: 'evt_queued', status: 'queued', input: { kind: 'user', message: { role: 'user', content: 'x' } } });
    await events.create({ ...base, eventId: 'evt_running', status: 'processing' });

    const completions = new AsyncToolCompletions(settlement, dispatcher);
    const transitions = new AsyncRequestTransitions(events);
    const report = await recoverAsyncWork({ repository, completions, requests: events, transitions, enqueue, logger: silentLogger });
    expect(report).toEqual({ sameInvocationFailed: 1, continuationsResumed: 2, eventsRequeued: 1, eventsFailed: 1 });
    expect((await repository.result(inline, `res_${inline}_0`))?.value).toMatchObject({ status: 'failed', error: 'service restarted' });
    expect(dispatched.sort()).toEqual([claimed, ready]);
    expect((await repository.snapshot(ready)).group?.value.continuation?.state).toBe('claimed');
    expect(requeued).toEqual(['evt_queued']);
    expect(await events.get('evt_running')).toMatchObject({ status: 'failed', error: 'service restarted while this turn was running' });
  });
});
