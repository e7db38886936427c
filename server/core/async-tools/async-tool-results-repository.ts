import type { TableStore, VersionedRow, WriteOperation } from '../storage/table-store.js';
import { type AsyncTableRow, type AsyncToolResult, type DispatchGroup, groupKey } from './async-tool-result.js';

export interface GroupSnapshot {
  group: VersionedRow<DispatchGroup> | undefined;
  results: VersionedRow<AsyncToolResult>[];
}

/** Async tool results and their dispatch groups: one partition per group, so a group and its rows change atomically. */
export class AsyncToolResultsRepository {
  constructor(private readonly table: TableStore<AsyncTableRow>) {}

  async snapshot(groupId: string): Promise<GroupSnapshot> {
    const rows = await this.table.list(groupId);
    const group = rows.find((row) => row.key === groupKey) as VersionedRow<DispatchGroup> | undefined;
    const results = rows.filter((row) => row.key !== groupKey) as VersionedRow<AsyncToolResult>[];
    return { group, results: results.sort((left, right) => left.value.createdAt.localeCompare(right.value.createdAt) || left.key.localeCompare(right.key)) };
  }

  async result(groupId: string, resultId: string): Promise<VersionedRow<AsyncToolResult> | undefined> {
    return (await this.table.get(groupId, resultId)) as VersionedRow<AsyncToolResult> | undefined;
  }

  /** All-or-nothing conditional write inside one group. Throws ConditionFailedError on a race. */
  async write(groupId: string, operations: WriteOperation<AsyncTableRow>[]): Promise<void> {
    await this.table.write(groupId, operations);
  }

  async groupIds(): Promise<string[]> {
    return this.table.listPartitions();
  }
}
