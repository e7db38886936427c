import { retryOnConflict } from './retry-on-conflict.js';
import type { TableStore, VersionedRow, WriteDecision } from './table-store.js';

/** Rounds of the optimistic loop before giving up (many racing writers of one partition). */
const defaultAttempts = 200;

/**
 * Read rows of a partition (`keys`: those that exist are passed; omitted, the whole partition in
 * `list` order) and write the batch `decide` makes of them, atomically with respect to the rows
 * read; a throw from `decide` writes nothing. Resolves with what `decide` answered.
 */
export type PartitionReadAndWrite = <T, Result>(
  table: TableStore<T>,
  partition: string,
  keys: string[] | undefined,
  decide: (rows: VersionedRow<T>[]) => WriteDecision<T, Result>,
  attempts?: number,
) => Promise<Result>;

/**
 * Optimistic on every backend: the batch must be conditional on the versions `decide` saw; one
 * that meets a concurrent change is decided again on fresh rows, and after `attempts` rounds
 * `ConditionalWriteExhaustedError` is thrown. For a write that rarely races, where PostgreSQL's
 * partition lock would cost more round trips than a rare second round.
 */
export const modifyRows: PartitionReadAndWrite = (table, partition, keys, decide, attempts = defaultAttempts) =>
  retryOnConflict(
    { table: table.name, key: partition },
    async () => {
      const rows = keys === undefined ? await table.list(partition) : await readKeys(table, partition, keys);
      const { operations, result } = decide(rows);
      if (operations.length > 0) await table.write(partition, operations);
      return result;
    },
    { attempts },
  );

/**
 * A backend that can hold the partition from the read to the write (`TableStore.readAndWrite`:
 * PostgreSQL's partition lock) runs `decide` once, racing callers queueing in the database;
 * otherwise this is `modifyRows`.
 */
export const readAndWrite: PartitionReadAndWrite = (table, partition, keys, decide, attempts = defaultAttempts) =>
  table.readAndWrite ? table.readAndWrite(partition, keys, decide) : modifyRows(table, partition, keys, decide, attempts);

/**
 * Read, change and write one row with compare-and-set, retrying when another writer got
 * there first. `change` returns the new value, or `undefined` to leave the row as it is.
 * Resolves with the row as written, or as found when left.
 */
export function modifyRow<T>(
  table: TableStore<T>,
  partition: string,
  key: string,
  change: (current: T | undefined) => T | undefined,
  attempts = 10,
): Promise<VersionedRow<T> | undefined> {
  return retryOnConflict(
    { table: table.name, key },
    async () => {
      const current = await table.get(partition, key);
      const next = change(current?.value);
      if (next === undefined) return current;
      const [written] = await table.write(partition, [{ type: 'put', key, value: next, expectedVersion: current ? current.version : null }]);
      return written;
    },
    { attempts },
  );
}

async function readKeys<T>(table: TableStore<T>, partition: string, keys: string[]): Promise<VersionedRow<T>[]> {
  const rows = await Promise.all(keys.map((key) => table.get(partition, key)));
  return rows.filter((row): row is VersionedRow<T> => row !== undefined);
}
