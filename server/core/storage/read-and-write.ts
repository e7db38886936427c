import { ConditionFailedError, type TableStore, type VersionedRow, type WriteDecision } from './table-store.js';

/** Rounds of the optimistic loop before giving up (many racing writers of one partition). */
const defaultAttempts = 200;

/**
 * Read rows of a partition and write a batch decided from them, atomically with respect to
 * the rows read. A backend that can hold the partition from the read to the write
 * (`TableStore.readAndWrite`: PostgreSQL's partition lock) runs `decide` once, racing callers
 * queueing in the database. Otherwise the batch must be conditional on the versions `decide`
 * saw, and a batch that meets a concurrent change is decided again on fresh rows; after
 * `attempts` rounds the last `ConditionFailedError` is thrown.
 */
export async function readAndWrite<T, Result>(
  table: TableStore<T>,
  partition: string,
  keys: string[] | undefined,
  decide: (rows: VersionedRow<T>[]) => WriteDecision<T, Result>,
  attempts = defaultAttempts,
): Promise<Result> {
  if (table.readAndWrite) return table.readAndWrite(partition, keys, decide);
  let lastConflict: ConditionFailedError | undefined;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const rows = keys === undefined ? await table.list(partition) : await readKeys(table, partition, keys);
    const { operations, result } = decide(rows);
    if (operations.length === 0) return result;
    try {
      await table.write(partition, operations);
      return result;
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      lastConflict = error;
    }
  }
  throw lastConflict ?? new ConditionFailedError(table.name, partition);
}

async function readKeys<T>(table: TableStore<T>, partition: string, keys: string[]): Promise<VersionedRow<T>[]> {
  const rows = await Promise.all(keys.map((key) => table.get(partition, key)));
  return rows.filter((row): row is VersionedRow<T> => row !== undefined);
}
