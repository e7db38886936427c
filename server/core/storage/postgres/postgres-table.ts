import type { PoolClient } from 'pg';
import { ConditionFailedError, type TableStore, type VersionedRow, type WriteDecision, type WriteOperation } from '../table-store.js';
import { statements } from './postgres-statements.js';

/** What a table needs from its storage: the schema ready, a connection, a transaction. */
export interface PostgresConnections {
  query<Row>(statement: { name: string; text: string }, values: unknown[]): Promise<Row[]>;
  transaction<Result>(work: (client: PoolClient) => Promise<Result>): Promise<Result>;
}

/** A row's state inside a batch: its version, or `null` when it does not exist. */
type RowState = number | null;

/** node-postgres returns bigint columns as strings (they may not fit a double); versions do. */
function version(value: string | number): number {
  return Number(value);
}

/**
 * One harness table on PostgreSQL. A batch is one transaction that first takes its
 * partition's lock, so it behaves like a lowdb partition: conditions are checked against
 * the rows as they were before the batch, then the operations are applied in order, then
 * COMMIT (durable: `synchronous_commit`) resolves the write. A failed condition rolls back.
 */
export class PostgresTable<T> implements TableStore<T> {
  constructor(
    readonly name: string,
    private readonly connections: PostgresConnections,
  ) {}

  async get(partition: string, key: string): Promise<VersionedRow<T> | undefined> {
    const [row] = await this.connections.query<{ value: T; version: string }>(statements.getRow, [this.name, partition, key]);
    return row ? { key, value: row.value, version: version(row.version) } : undefined;
  }

  async list(partition: string): Promise<VersionedRow<T>[]> {
    const rows = await this.connections.query<{ key: string; value: T; version: string }>(statements.listRows, [this.name, partition]);
    return rows.map((row) => ({ key: row.key, value: row.value, version: version(row.version) }));
  }

  async listPartitions(): Promise<string[]> {
    const rows = await this.connections.query<{ partition: string }>(statements.listPartitions, [this.name]);
    return rows.map((row) => row.partition);
  }

  async write(partition: string, operations: WriteOperation<T>[]): Promise<VersionedRow<T>[]> {
    if (operations.length === 0) return [];
    return this.connections.transaction(async (client) => {
      await client.query({ ...statements.lockPartition, values: [this.name, partition] });
      return this.applyLocked(client, partition, operations);
    });
  }

  /**
   * The partition's lock first, then the read, `decide` and its batch in the same
   * transaction: racing callers queue on the lock (a short wait each) instead of failing a
   * condition and reading again, which is what made N racing writers of one partition cost
   * N² reads. The versions just read serve the batch's conditions (no second read for them).
   */
  async readAndWrite<Result>(partition: string, keys: string[] | undefined, decide: (rows: VersionedRow<T>[]) => WriteDecision<T, Result>): Promise<Result> {
    return this.connections.transaction(async (client) => {
      await client.query({ ...statements.lockPartition, values: [this.name, partition] });
      const found =
        keys === undefined
          ? await client.query<{ key: string; value: T; version: string }>({ ...statements.listRows, values: [this.name, partition] })
          : await client.query<{ key: string; value: T; version: string }>({ ...statements.readRows, values: [this.name, partition, keys] });
      const rows = found.rows.map((row) => ({ key: row.key, value: row.value, version: version(row.version) }));
      const { operations, result } = decide(rows);
      if (operations.length === 0) return result;
      const known = new Map<string, RowState>((keys ?? []).map((key) => [key, null]));
      for (const row of rows) known.set(row.key, row.version);
      await this.applyLocked(client, partition, operations, known, keys === undefined);
      return result;
    });
  }

  /**
   * Check the batch's conditions and apply it; the caller's transaction holds the partition's
   * lock. `known`: versions read under that lock (`null`: absent); `complete`: they are the
   * whole partition, so any other key is absent. Versions of other keys are read here.
   */
  private async applyLocked(client: PoolClient, partition: string, operations: WriteOperation<T>[], known = new Map<string, RowState>(), complete = false): Promise<VersionedRow<T>[]> {
    const keys = [...new Set(operations.map((operation) => operation.key))];
    const before = new Map<string, RowState>(keys.map((key) => [key, known.get(key) ?? null]));
    const unknown = complete ? [] : keys.filter((key) => !known.has(key));
    if (unknown.length > 0) {
      const found = await client.query<{ key: string; version: string }>({ ...statements.readVersions, values: [this.name, partition, unknown] });
      for (const row of found.rows) before.set(row.key, version(row.version));
    }
    for (const operation of operations) {
      if (operation.expectedVersion === undefined) continue;
      if (before.get(operation.key) !== operation.expectedVersion) throw new ConditionFailedError(this.name, operation.key);
    }

    const current = new Map(before);
    const finalValues = new Map<string, string>();
    const deleted = new Set<string>();
    const written: VersionedRow<T>[] = [];
    for (const operation of operations) {
      if (operation.type === 'delete') {
        current.set(operation.key, null);
        finalValues.delete(operation.key);
        deleted.add(operation.key);
        continue;
      }
      const next = (current.get(operation.key) ?? 0) + 1;
      const text = JSON.stringify(operation.value) ?? 'null';
      current.set(operation.key, next);
      finalValues.set(operation.key, text);
      // What a later read returns: the stored JSON, not the caller's object.
      written.push({ key: operation.key, value: JSON.parse(text) as T, version: next });
    }

    // Deleted first, so a row deleted and put again in one batch moves to the end, as in lowdb.
    if (deleted.size > 0) await client.query({ ...statements.deleteRows, values: [this.name, partition, [...deleted]] });
    if (finalValues.size > 0) {
      const upserted = [...finalValues.keys()];
      await client.query({
        ...statements.upsertRows,
        values: [this.name, partition, upserted, upserted.map((key) => finalValues.get(key)), upserted.map((key) => current.get(key))],
      });
    }
    return written;
  }
}
