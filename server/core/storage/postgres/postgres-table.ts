import type { PoolClient } from 'pg';
import { ConditionFailedError, type TableStore, type VersionedRow, type WriteDecision, type WriteOperation } from '../table-store.js';
import { type NamedStatement, statements } from './postgres-statements.js';

/** What a table needs from its storage: the schema ready, a connection, a transaction. */
export interface PostgresConnections {
  query<Row>(statement: { name: string; text: string }, values: unknown[]): Promise<Row[]>;
  transaction<Result>(work: (client: PoolClient) => Promise<Result>): Promise<Result>;
}

/** node-postgres returns bigint columns as strings (they may not fit a double); versions do. */
function version(value: string | number): number {
  return Number(value);
}

/**
 * One harness table on PostgreSQL. A batch is one statement, `harness_write_batch` (migration
 * 0005), a transaction of its own that first takes its partition's lock, so it behaves like a
 * lowdb partition: conditions are checked against the rows as they were before the batch,
 * then the operations are applied in order, then COMMIT (durable: `synchronous_commit`)
 * resolves the write. A failed condition rolls back and writes nothing.
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
    const batch = new WriteBatch(this.name, partition, operations);
    return batch.written(await this.writeConditionally(batch, (statement, values) => this.connections.query<{ versions: string[] }>(statement, values)));
  }

  /**
   * The partition's lock first, then the read, `decide` and its batch in the same
   * transaction: racing callers queue on the lock (a short wait each) instead of failing a
   * condition and reading again, which is what made N racing writers of one partition cost
   * N² reads. The batch's conditions are checked again under the lock, which is still held.
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
      await this.writeConditionally(new WriteBatch(this.name, partition, operations), async (statement, values) => (await client.query<{ versions: string[] }>({ ...statement, values })).rows);
      return result;
    });
  }

  /** Runs the batch statement; a failed condition becomes `ConditionFailedError`. Returns each operation's new version. */
  private async writeConditionally(batch: WriteBatch<T>, run: (statement: NamedStatement, values: unknown[]) => Promise<{ versions: string[] }[]>): Promise<(string | null)[]> {
    try {
      const [row] = await run(statements.writeBatch, batch.values);
      return row!.versions;
    } catch (error) {
      const { code, detail } = error as { code?: string; detail?: string };
      if (code === conditionFailedCode) throw new ConditionFailedError(this.name, detail ?? '');
      throw error;
    }
  }
}

/** The SQLSTATE `harness_write_batch` raises when a condition fails. */
const conditionFailedCode = 'HR001';

/** A batch as the parallel arrays `harness_write_batch` takes, one element an operation. */
class WriteBatch<T> {
  readonly values: unknown[];
  /** Each put's value as stored: what a later read returns is the stored JSON, not the caller's object. */
  private readonly texts: (string | null)[];

  constructor(
    table: string,
    partition: string,
    private readonly operations: WriteOperation<T>[],
  ) {
    this.texts = operations.map((operation) => (operation.type === 'put' ? (JSON.stringify(operation.value) ?? 'null') : null));
    this.values = [
      table,
      partition,
      operations.map((operation) => operation.type),
      operations.map((operation) => operation.key),
      this.texts,
      operations.map((operation) => operation.expectedVersion !== undefined),
      operations.map((operation) => operation.expectedVersion ?? null),
    ];
  }

  /** The rows the puts wrote, in order, given the versions the statement returned. */
  written(versions: (string | null)[]): VersionedRow<T>[] {
    const rows: VersionedRow<T>[] = [];
    for (const [index, operation] of this.operations.entries()) {
      if (operation.type === 'delete') continue;
      rows.push({ key: operation.key, value: JSON.parse(this.texts[index]!) as T, version: version(versions[index]!) });
    }
    return rows;
  }
}
