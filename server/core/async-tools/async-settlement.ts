import { ConflictError, NotFoundError } from '../errors.js';
import { ConditionFailedError, type WriteOperation } from '../storage/table-store.js';
import { type AsyncTableRow, type AsyncToolResult, type DispatchGroup, groupKey, groupIdOfResult } from './async-tool-result.js';
import type { AsyncToolResultsRepository, GroupSnapshot } from './async-tool-results-repository.js';
import { claimContinuation } from './continuation-claim.js';

export type AsyncOutcome = { status: 'completed'; response: Record<string, unknown> } | { status: 'failed'; error: string };

export interface SettlementResult {
  resultId: string;
  status: 'completed' | 'failed';
  /** This settlement (or seal) claimed the group's continuation: it must be run. */
  claimed: boolean;
  /** External rows of the group still processing. */
  pendingCount: number;
  group?: DispatchGroup;
}

function externalRowsPending(snapshot: GroupSnapshot, except?: string): number {
  const ids = new Set(snapshot.group?.value.resultIds ?? []);
  return snapshot.results.filter((row) => ids.has(row.key) && row.key !== except && row.value.status === 'processing').length;
}

/**
 * The transitions of async rows and dispatch groups. Every transition is one conditional
 * batch on the group's partition, decided from the group as it is and conditioned on the
 * versions it read of the row AND the group; every settlement also bumps the group. So of N
 * racing settlements, exactly one sees the last sibling settled, and the group's continuation
 * is claimed exactly once. On PostgreSQL racing settlements of one group queue on the
 * group's lock rather than retry (`AsyncToolResultsRepository.transition`).
 */
export class AsyncSettlement {
  constructor(
    private readonly repository: AsyncToolResultsRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Find a row for an account; unknown and foreign rows are the same 404. */
  async find(resultId: string, accountId: string): Promise<AsyncToolResult> {
    const groupId = groupIdOfResult(resultId);
    const row = groupId ? await this.repository.result(groupId, resultId) : undefined;
    if (!row || row.value.accountId !== accountId) throw new NotFoundError(`No async tool result ${resultId}.`);
    return row.value;
  }

  /**
   * Settle a row that is still processing. `from` says who settles: the completion endpoint
   * may only settle external-dispatch rows (a same-invocation row is settled in-process: 409).
   */
  async settle(resultId: string, outcome: AsyncOutcome, from: 'endpoint' | 'in-process', accountId?: string): Promise<SettlementResult> {
    const groupId = groupIdOfResult(resultId);
    if (!groupId) throw new NotFoundError(`No async tool result ${resultId}.`);
    try {
      return await this.repository.transition(groupId, (snapshot) => {
        const row = snapshot.results.find((candidate) => candidate.key === resultId);
        if (!row || (accountId !== undefined && row.value.accountId !== accountId)) throw new NotFoundError(`No async tool result ${resultId}.`);
        if (from === 'endpoint' && row.value.execution === 'same-invocation') {
          throw new ConflictError(`${resultId} is a same-invocation result: it is settled by the turn that runs it and cannot be completed from outside.`);
        }
        if (row.value.cancelledAt) throw new ConflictError(`${resultId} was cancelled with its turn; it cannot be completed.`);
        if (row.value.status !== 'processing') throw new ConflictError(`${resultId} is already ${row.value.status}.`);
        const timestamp = this.now().toISOString();
        const settled: AsyncToolResult = {
          ...row.value,
          status: outcome.status,
          ...(outcome.status === 'completed' ? { response: outcome.response } : { error: outcome.error }),
          updatedAt: timestamp,
          settledAt: timestamp,
        };
        const operations: WriteOperation<AsyncTableRow>[] = [{ type: 'put', key: resultId, value: settled, expectedVersion: row.version }];
        const group = snapshot.group;
        let claimed = false;
        let nextGroup: DispatchGroup | undefined;
        const pendingCount = externalRowsPending(snapshot, resultId);
        if (group) {
          ({ group: nextGroup, claimed } = claimContinuation({ ...group.value, settledCount: group.value.settledCount + 1, updatedAt: timestamp }, pendingCount, timestamp));
          operations.push({ type: 'put', key: groupKey, value: nextGroup, expectedVersion: group.version });
        }
        return { operations, result: { resultId, status: outcome.status, claimed, pendingCount, ...(nextGroup ? { group: nextGroup } : {}) } };
      });
    } catch (error) {
      if (error instanceof ConditionFailedError) throw new ConflictError(`${resultId} is being settled concurrently; retry.`);
      throw error;
    }
  }

  /** Seal a group once its pass has registered every call; claims the continuation when nothing is pending. */
  async seal(groupId: string): Promise<{ claimed: boolean; pendingCount: number; group: DispatchGroup }> {
    try {
      return await this.repository.transition(groupId, (snapshot) => {
        if (!snapshot.group) throw new Error(`Dispatch group ${groupId} does not exist.`);
        const timestamp = this.now().toISOString();
        const pendingCount = externalRowsPending(snapshot);
        const { group, claimed } = claimContinuation({ ...snapshot.group.value, sealed: true, sealedAt: snapshot.group.value.sealedAt ?? timestamp, updatedAt: timestamp }, pendingCount, timestamp);
        return { operations: [{ type: 'put', key: groupKey, value: group, expectedVersion: snapshot.group.version }], result: { claimed, pendingCount, group } };
      });
    } catch (error) {
      if (error instanceof ConditionFailedError) throw new Error(`Dispatch group ${groupId} could not be sealed.`, { cause: error });
      throw error;
    }
  }

  /** Claim a sealed, settled, unclaimed group (recovery after a restart). */
  async claimIfReady(groupId: string): Promise<DispatchGroup | undefined> {
    return this.repository.transition(groupId, (snapshot) => {
      const group = snapshot.group;
      const claim = group && claimContinuation(group.value, externalRowsPending(snapshot), this.now().toISOString());
      if (!group || !claim?.claimed) return { operations: [], result: undefined };
      return { operations: [{ type: 'put', key: groupKey, value: claim.group, expectedVersion: group.version }], result: claim.group };
    });
  }

  /**
   * Close a group because its turn was cancelled: every call still processing ends `failed`
   * (completing it later is a 409), the group is sealed and marked, and a continuation claimed
   * but not yet run is marked done, so none runs. Returns the calls it closed and the status
   * row the group reports to.
   */
  async cancelGroup(groupId: string, reason: string): Promise<{ closed: string[]; eventId?: string }> {
    try {
      return await this.repository.transition<{ closed: string[]; eventId?: string }>(groupId, (snapshot) => {
        const group = snapshot.group;
        if (!group || group.value.cancelledAt) return { operations: [], result: { closed: [] } };
        const timestamp = this.now().toISOString();
        const operations: WriteOperation<AsyncTableRow>[] = [];
        const closed: string[] = [];
        for (const row of snapshot.results) {
          if (row.value.status !== 'processing') continue;
          operations.push({ type: 'put', key: row.key, value: { ...row.value, status: 'failed', error: reason, cancelledAt: timestamp, settledAt: timestamp, updatedAt: timestamp }, expectedVersion: row.version });
          closed.push(row.key);
        }
        const continuation = group.value.continuation?.state === 'claimed' ? { ...group.value.continuation, state: 'done' as const, finishedAt: timestamp } : group.value.continuation;
        const next: DispatchGroup = { ...group.value, sealed: true, sealedAt: group.value.sealedAt ?? timestamp, cancelledAt: timestamp, updatedAt: timestamp, ...(continuation ? { continuation } : {}) };
        operations.push({ type: 'put', key: groupKey, value: next, expectedVersion: group.version });
        return { operations, result: { closed, eventId: group.value.delivery.eventId } };
      });
    } catch (error) {
      if (error instanceof ConditionFailedError) throw new ConflictError(`The async calls of group ${groupId} are being settled concurrently; retry the cancel.`);
      throw error;
    }
  }

  /** Mark a claimed continuation finished, so a restart does not run it again. */
  async finishContinuation(groupId: string): Promise<void> {
    // A group that never stops changing is left claimed: a restart runs it again, as before.
    await this.repository.transition(groupId, (snapshot) => {
      const group = snapshot.group;
      if (!group?.value.continuation || group.value.continuation.state === 'done') return { operations: [], result: undefined };
      const timestamp = this.now().toISOString();
      const next: DispatchGroup = { ...group.value, continuation: { ...group.value.continuation, state: 'done', finishedAt: timestamp }, updatedAt: timestamp };
      return { operations: [{ type: 'put', key: groupKey, value: next, expectedVersion: group.version }], result: undefined };
    }).catch((error: unknown) => {
      if (!(error instanceof ConditionFailedError)) throw error;
    });
  }
}
