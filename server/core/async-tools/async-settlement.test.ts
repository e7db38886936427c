import { describe, expect, it } from 'vitest';
import { lowdbStoragePerTest } from '../storage/test-support/lowdb-per-test.js';
import { AsyncSettlement } from './async-settlement.js';
import { type AsyncTableRow, type AsyncToolResult, groupKey } from './async-tool-result.js';
import { AsyncToolResultsRepository } from './async-tool-results-repository.js';
import { asyncResultRow, dispatchGroup } from './test-support/async-rows.js';

const groupId = 'grp_aaaaaaaaaaaaaaaaaaaaaaaa';
const row = (index: number, execution: AsyncToolResult['execution']) => asyncResultRow(groupId, index, execution);
const group = (resultIds: string[], sealed: boolean) => dispatchGroup(groupId, resultIds, { sealed });

describe('AsyncSettlement', () => {
  const { open } = lowdbStoragePerTest();

  async function setUp(calls: number, sealed: boolean) {
    const storage = open();
    const repository = new AsyncToolResultsRepository(storage.table<AsyncTableRow>('async'));
    const rows = Array.from({ length: calls }, (_, index) => row(index, 'external-dispatch'));
    await repository.write(groupId, [
      ...rows.map((value) => ({ type: 'put' as const, key: value.resultId, value })),
      { type: 'put', key: groupKey, value: group(rows.map((value) => value.resultId), sealed) },
    ]);
    return { repository, settlement: new AsyncSettlement(repository), resultIds: rows.map((value) => value.resultId) };
  }

  it('claims the continuation exactly once when every call of a sealed group settles at the same time', async () => {
    const { repository, settlement, resultIds } = await setUp(8, true);
    const settled = await Promise.all(resultIds.map((resultId) => settlement.settle(resultId, { status: 'completed', response: { resultId } }, 'endpoint', 'acc')));
    expect(settled.filter((result) => result.claimed)).toHaveLength(1);
    const snapshot = await repository.snapshot(groupId);
    expect(snapshot.group?.value).toMatchObject({ settledCount: 8, continuation: { state: 'claimed' } });
    expect(snapshot.results.every((result) => result.value.status === 'completed')).toBe(true);
  });

  it('leaves the claim to the seal when the calls settle before it, and claims once', async () => {
    const { settlement, resultIds } = await setUp(2, false);
    const settled = await Promise.all(resultIds.map((resultId) => settlement.settle(resultId, { status: 'failed', error: 'no' }, 'endpoint', 'acc')));
    expect(settled.map((result) => [result.claimed, result.pendingCount])).toEqual([
      [false, expect.any(Number)],
      [false, expect.any(Number)],
    ]);
    const [first, second] = await Promise.all([settlement.seal(groupId), settlement.seal(groupId)]);
    expect([first.claimed, second.claimed].filter(Boolean)).toHaveLength(1);
    expect(await settlement.claimIfReady(groupId)).toBeUndefined();
  });

  it('settles a row once: a second settlement is a conflict, another account sees no row', async () => {
    const { settlement, resultIds } = await setUp(2, true);
    const [first, second] = resultIds as [string, string];
    await expect(settlement.settle(first, { status: 'completed', response: {} }, 'endpoint', 'other')).rejects.toMatchObject({ code: 'not_found' });
    expect(await settlement.settle(first, { status: 'completed', response: {} }, 'endpoint', 'acc')).toMatchObject({ claimed: false, pendingCount: 1 });
    await expect(settlement.settle(first, { status: 'completed', response: {} }, 'endpoint', 'acc')).rejects.toMatchObject({ code: 'conflict' });
    expect(await settlement.settle(second, { status: 'completed', response: {} }, 'endpoint', 'acc')).toMatchObject({ claimed: true, pendingCount: 0 });
  });

  it('refuses to settle a same-invocation row from the endpoint', async () => {
    const storage = open();
    const repository = new AsyncToolResultsRepository(storage.table<AsyncTableRow>('async'));
    const inline = row(0, 'same-invocation');
    await repository.write(groupId, [
      { type: 'put', key: inline.resultId, value: inline },
      { type: 'put', key: groupKey, value: group([], false) },
    ]);
    const settlement = new AsyncSettlement(repository);
    await expect(settlement.settle(inline.resultId, { status: 'completed', response: {} }, 'endpoint', 'acc')).rejects.toMatchObject({ code: 'conflict' });
    expect(await settlement.settle(inline.resultId, { status: 'completed', response: {} }, 'in-process')).toMatchObject({ status: 'completed', claimed: false });
  });

  it('marks a claimed continuation done once', async () => {
    const { repository, settlement, resultIds } = await setUp(1, true);
    await settlement.settle(resultIds[0]!, { status: 'completed', response: {} }, 'endpoint', 'acc');
    await Promise.all([settlement.finishContinuation(groupId), settlement.finishContinuation(groupId)]);
    expect((await repository.snapshot(groupId)).group?.value.continuation).toMatchObject({ state: 'done', finishedAt: expect.any(String) });
  });

  it('cancelGroup closes the processing calls, seals the group without a continuation, and a later completion is a 409', async () => {
    const { repository, settlement, resultIds } = await setUp(3, false);
    await settlement.settle(resultIds[0]!, { status: 'completed', response: {} }, 'endpoint', 'acc');
    const cancelled = await settlement.cancelGroup(groupId, 'cancelled by a cancel request');
    expect(cancelled.closed).toEqual(resultIds.slice(1));
    const snapshot = await repository.snapshot(groupId);
    expect(snapshot.group?.value).toMatchObject({ sealed: true, cancelledAt: expect.any(String) });
    expect(snapshot.group?.value.continuation).toBeUndefined();
    expect(snapshot.results.map((result) => result.value.status)).toEqual(['completed', 'failed', 'failed']);
    await expect(settlement.settle(resultIds[1]!, { status: 'completed', response: {} }, 'endpoint', 'acc')).rejects.toThrow('was cancelled with its turn');
    expect((await settlement.seal(groupId)).claimed).toBe(false);
    expect(await settlement.claimIfReady(groupId)).toBeUndefined();
    expect((await settlement.cancelGroup(groupId, 'again')).closed).toEqual([]);
  });
});
