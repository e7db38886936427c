import type { UIMessageChunk } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestStorage } from '../../../test/support/test-storage.js';
import { temporaryFolderPerTest } from '../../../test/support/temporary-folder.js';
import { AccountDisabledError } from '../accounts/account-status.js';
import { AsyncSettlement } from '../async-tools/async-settlement.js';
import { type AsyncTableRow, type DispatchGroup, groupKey } from '../async-tools/async-tool-result.js';
import { AsyncToolResultsRepository } from '../async-tools/async-tool-results-repository.js';
import { asyncResultRow, dispatchGroup, now } from '../async-tools/test-support/async-rows.js';
import type { JobQueue, JobQueueFactory } from '../coordination/job-queue.js';
import { silentLogger } from '../logger.js';
import type { Storage } from '../storage/table-store.js';
import type { TransportKind } from '../transports/transports.js';
import type { TurnRunner } from '../turns/turn-runner.js';
import type { StartedTurn, TurnRequest, TurnResult } from '../turns/turn-types.js';
import { BackgroundWorker } from './background-worker.js';
import type { ContinuationDeliveries, ContinuationDelivery } from './continuation-dispatcher.js';
import { RunQueue } from './run-queue.js';
import type { AsyncRequestRecord } from './status-row.js';
import { AsyncRequestTransitions } from './status-row-transitions.js';
import { AsyncRequestsRepository } from './status-rows-repository.js';

/**
 * The worker's input port for turns: records what it was asked to start and answers with a
 * turn whose stream and result the test chose (or refuses, as admission would).
 */
function scriptedTurns(answer: { text?: string; refuse?: Error } = {}) {
  const started: TurnRequest[] = [];
  const continued: DispatchGroup[] = [];
  const turn = (eventId: string): StartedTurn => {
    const text = answer.text ?? 'done';
    const result: TurnResult = { turnId: 'turn_1', eventId, conversationKey: 'k', status: 'completed', text, messages: [], pendingApprovals: [], pendingAsyncTools: [], deniedApprovals: [] };
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        controller.enqueue({ type: 'text-delta', id: 'text_1', delta: text });
        controller.close();
      },
    });
    return { turnId: 'turn_1', eventId, stream, result: Promise.resolve(result) };
  };
  const turns: Pick<TurnRunner, 'start' | 'startContinuation'> = {
    async start(request) {
      started.push(request);
      if (answer.refuse) throw answer.refuse;
      return turn(request.eventId ?? 'evt_none');
    },
    async startContinuation(group) {
      continued.push(group);
      if (answer.refuse) throw answer.refuse;
      return turn(group.delivery.eventId);
    },
  };
  return { turns, started, continued };
}

/** A queue that hands every job over at once as delivery number `attempt` (a shared queue redelivers with attempt > 1). */
function deliveredAs(attempt: number): JobQueueFactory {
  return <Job>(run: (job: Job, delivery: { attempt: number }) => Promise<void>): JobQueue<Job> => {
    const running = new Set<Promise<void>>();
    return {
      push(job) {
        const done: Promise<void> = run(job, { attempt }).finally(() => running.delete(done));
        running.add(done);
      },
      async idle() {
        while (running.size > 0) await Promise.all(running);
      },
      async stop() {
        await this.idle();
      },
    };
  };
}

const input = { kind: 'user' as const, message: { role: 'user' as const, content: 'hello' } };

describe('BackgroundWorker', () => {
  const folder = temporaryFolderPerTest();
  let storage: Storage | undefined;
  afterEach(async () => {
    await storage?.close();
    storage = undefined;
  });

  async function setUp(turns: Pick<TurnRunner, 'start' | 'startContinuation'>, options: { attempt?: number; deliveries?: ContinuationDeliveries } = {}) {
    storage = await openTestStorage(folder.path);
    const requests = new AsyncRequestsRepository(storage.table<AsyncRequestRecord>('events'));
    const asyncResults = new AsyncToolResultsRepository(storage.table<AsyncTableRow>('async'));
    const transitions = new AsyncRequestTransitions(requests);
    const queue = new RunQueue(options.attempt ? { queues: deliveredAs(options.attempt) } : {});
    const worker = new BackgroundWorker({ turns, transitions, asyncResults, settlement: new AsyncSettlement(asyncResults), deliveries: options.deliveries ?? {}, logger: silentLogger, queue });
    return { requests, asyncResults, transitions, worker };
  }

  const queued = (eventId: string, transport: TransportKind = 'async') => ({ eventId, accountId: 'acc', agentId: 'agent', conversationKey: 'k', transport, input });

  describe('an /async request', () => {
    it('is claimed once and run to its end: the row is completed with the result on it', async () => {
      const { turns, started } = scriptedTurns({ text: 'the answer' });
      const { transitions, requests, worker } = await setUp(turns);
      await transitions.queue(queued('evt_1'));
      worker.enqueue({ kind: 'async-request', eventId: 'evt_1' });
      await worker.idle();
      worker.enqueue({ kind: 'async-request', eventId: 'evt_1' });
      await worker.idle();

      expect(started).toHaveLength(1);
      expect(started[0]).toMatchObject({ accountId: 'acc', agentId: 'agent', conversationKey: 'k', input, transport: 'async', approvalPolicy: 'ask', eventId: 'evt_1' });
      expect(await requests.get('evt_1')).toMatchObject({ status: 'completed', result: { text: 'the answer' } });
    });

    it('of a transport that cannot answer approvals (cron) runs with approvals denied', async () => {
      const { turns, started } = scriptedTurns();
      const { transitions, worker } = await setUp(turns);
      await transitions.queue(queued('evt_cron', 'cron'));
      worker.enqueue({ kind: 'async-request', eventId: 'evt_cron' });
      await worker.idle();
      expect(started.map((request) => [request.transport, request.approvalPolicy])).toEqual([['cron', 'deny']]);
    });

    it('ends the row failed with the reason when its turn cannot start', async () => {
      const { turns } = scriptedTurns({ refuse: new AccountDisabledError('acc') });
      const { transitions, requests, worker } = await setUp(turns);
      await transitions.queue(queued('evt_1'));
      worker.enqueue({ kind: 'async-request', eventId: 'evt_1' });
      await worker.idle();
      expect(await requests.get('evt_1')).toMatchObject({ status: 'failed', error: 'This account is disabled; it runs no turns.' });
    });

    it('delivered again (attempt > 1) takes over a row left processing, and runs it to its end', async () => {
      const { turns, started } = scriptedTurns({ text: 'taken over' });
      const { transitions, requests, worker } = await setUp(turns, { attempt: 2 });
      await transitions.queue(queued('evt_1'));
      // The replica that claimed it died before it finished.
      expect(await transitions.claim('evt_1')).toBeDefined();
      worker.enqueue({ kind: 'async-request', eventId: 'evt_1' });
      await worker.idle();
      expect(started.map((request) => request.eventId)).toEqual(['evt_1']);
      expect(await requests.get('evt_1')).toMatchObject({ status: 'completed', result: { text: 'taken over' } });
    });

    it('delivered the first time, leaves a row another worker holds processing alone', async () => {
      const { turns, started } = scriptedTurns();
      const { transitions, requests, worker } = await setUp(turns, { attempt: 1 });
      await transitions.queue(queued('evt_1'));
      await transitions.claim('evt_1');
      worker.enqueue({ kind: 'async-request', eventId: 'evt_1' });
      await worker.idle();
      expect(started).toEqual([]);
      expect((await requests.get('evt_1'))?.status).toBe('processing');
    });

    it('leaves a final row alone, even delivered again', async () => {
      const { turns, started } = scriptedTurns();
      const { transitions, requests, worker } = await setUp(turns, { attempt: 3 });
      await transitions.queue(queued('evt_1'));
      await transitions.claim('evt_1');
      await transitions.fail('evt_1', 'it broke');
      const before = await requests.get('evt_1');
      worker.enqueue({ kind: 'async-request', eventId: 'evt_1' });
      await worker.idle();
      expect(started).toEqual([]);
      expect(await requests.get('evt_1')).toEqual(before);
    });
  });

  describe('a continuation', () => {
    const groupId = 'grp_aaaaaaaaaaaaaaaaaaaaaaaa';
    const resultId = `res_${groupId}_0`;

    /** A settled group whose continuation this worker's process claimed, on `transport`, and its parent row waiting for it. */
    async function claimedGroup(context: Awaited<ReturnType<typeof setUp>>, transport: TransportKind, state: 'claimed' | 'done' = 'claimed') {
      const delivery = { transport, eventId: 'evt_parent' };
      await context.asyncResults.write(groupId, [
        { type: 'put', key: resultId, value: { ...asyncResultRow(groupId, 0, 'external-dispatch', 'completed'), delivery, response: { ok: true } } },
        { type: 'put', key: groupKey, value: dispatchGroup(groupId, [resultId], { delivery, settledCount: 1, continuation: { continuationEventId: 'evt_cont', state, claimedAt: now } }) },
      ]);
      await context.requests.create({ eventId: 'evt_parent', accountId: 'acc', agentId: 'agent', conversationKey: 'k', transport, status: 'waiting_async_tools', createdAt: now, updatedAt: now });
    }

    function recordingDelivery() {
      const seen: { chunks: UIMessageChunk[]; finished: TurnResult[]; failedToStart: unknown[] } = { chunks: [], finished: [], failedToStart: [] };
      const delivery: ContinuationDelivery = {
        stream: () => (chunk) => seen.chunks.push(chunk),
        finished: async (_group, result) => void seen.finished.push(result),
        failedToStart: async (_group, error) => void seen.failedToStart.push(error),
      };
      return { delivery, seen };
    }

    it("runs the claimed group's continuation, delivers it on its transport, finishes the parent row and marks the group done", async () => {
      const { turns, continued } = scriptedTurns({ text: 'after the tools' });
      const { delivery, seen } = recordingDelivery();
      const context = await setUp(turns, { deliveries: { nats: delivery } });
      await claimedGroup(context, 'nats');
      context.worker.enqueue({ kind: 'continuation', groupId });
      await context.worker.idle();

      expect(continued.map((group) => group.groupId)).toEqual([groupId]);
      expect(seen.chunks).toEqual([{ type: 'text-delta', id: 'text_1', delta: 'after the tools' }]);
      expect(seen.finished.map((result) => result.text)).toEqual(['after the tools']);
      expect(await context.requests.get('evt_parent')).toMatchObject({ status: 'completed', result: { text: 'after the tools' } });
      expect((await context.asyncResults.snapshot(groupId)).group?.value.continuation?.state).toBe('done');
    });

    it('does not run a group whose continuation is not claimed (done already)', async () => {
      const { turns, continued } = scriptedTurns();
      const context = await setUp(turns);
      await claimedGroup(context, 'async', 'done');
      context.worker.enqueue({ kind: 'continuation', groupId });
      await context.worker.idle();
      expect(continued).toEqual([]);
      expect((await context.requests.get('evt_parent'))?.status).toBe('waiting_async_tools');
    });

    it("of a disabled account ends the row failed with the reason, marks the group done, and tells the transport's delivery", async () => {
      const { turns } = scriptedTurns({ refuse: new AccountDisabledError('acc') });
      const { delivery, seen } = recordingDelivery();
      const context = await setUp(turns, { deliveries: { channel: delivery } });
      await claimedGroup(context, 'channel');
      context.worker.enqueue({ kind: 'continuation', groupId });
      await context.worker.idle();

      expect(await context.requests.get('evt_parent')).toMatchObject({ status: 'failed', error: 'This account is disabled; it runs no turns.' });
      expect((await context.asyncResults.snapshot(groupId)).group?.value.continuation?.state).toBe('done');
      expect(seen.failedToStart).toHaveLength(1);
      expect(seen.failedToStart[0]).toBeInstanceOf(AccountDisabledError);
      expect(seen.finished).toEqual([]);
    });
  });
});
