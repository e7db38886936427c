import { readAndWrite } from '../storage/read-and-write.js';
import type { TableStore, VersionedRow, WriteDecision, WriteOperation } from '../storage/table-store.js';
import { type AsyncTableRow, type AsyncToolResult, type DispatchGroup, groupKey } from './async-tool-result.js';

export interface GroupSnapshot {
  group: VersionedRow<DispatchGroup> | undefined;
  results: VersionedRow<AsyncToolResult>[];
}

function snapshotOf(rows: VersionedRow<AsyncTableRow>[]): GroupSnapshot {
  const group = rows.find((row) => row.key === groupKey) as VersionedRow<DispatchGroup> | undefined;
  const results = rows.filter((row) => row.key !== groupKey) as VersionedRow<AsyncToolResult>[];
  return { group, results: results.sort((left, right) => left.value.createdAt.localeCompare(right.value.createdAt) || left.key.localeCompare(right.key)) };
}

/** Async tool results and their dispatch groups: one partition per group, so a group and its rows change atomically. */
export class AsyncToolResultsRepository {
  constructor(private readonly table: TableStore<AsyncTableRow>) {}

  async snapshot(groupId: string): Promise<GroupSnapshot> {
    return snapshotOf(await this.table.list(groupId));
  }

  async result(groupId: string, resultId: string): Promise<VersionedRow<AsyncToolResult> | undefined> {
    return (await this.table.get(groupId, resultId)) as VersionedRow<AsyncToolResult> | undefined;
  }

  /** All-or-nothing conditional write inside one group. Throws ConditionFailedError on a race. */
  async write(groupId: string, operations: WriteOperation<AsyncTableRow>[]): Promise<void> {
    await this.table.write(groupId, operations);
  }

  /**
   * Decide a transition from the group as it is and apply it atomically: its batch must be
   * conditional on the versions of the snapshot. Racing transitions of one group queue in
   * the database where the backend can (PostgreSQL), else they are decided again on a fresh
   * snapshot; throws ConditionFailedError when they never stop racing.
   */
  async transition<Result>(groupId: string, decide: (snapshot: GroupSnapshot) => WriteDecision<AsyncTableRow, Result>): Promise<Result> {
    return readAndWrite(this.table, groupId, undefined, (rows) => decide(snapshotOf(rows)));
  }

  async groupIds(): Promise<string[]> {
    return this.table.listPartitions();
  }
}
