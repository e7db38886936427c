/**
 * The storage interface every repository is written against. A table is split into
 * partitions (one account's agents, one conversation, one dispatch group...); a partition is
 * the unit of atomicity: a batch of operations on one partition is applied all-or-nothing,
 * and each operation can be conditional on a row's version (compare-and-set). That is all a
 * repository needs for exactly-once transitions, and it maps onto lowdb files (here) as well
 * as onto a revision-checked key-value store (NATS JetStream KV) for several replicas.
 */
export interface VersionedRow<T> {
  key: string;
  value: T;
  /** Starts at 1 and grows by one with every write of the row. */
  version: number;
}

/**
 * `expectedVersion`: a number means "only if the row is at exactly that version"; `null`
 * means "only if the row does not exist"; omitted means unconditional.
 */
export type WriteOperation<T> =
  | { type: 'put'; key: string; value: T; expectedVersion?: number | null }
  | { type: 'delete'; key: string; expectedVersion?: number };

export interface TableStore<T> {
  readonly name: string;
  get(partition: string, key: string): Promise<VersionedRow<T> | undefined>;
  list(partition: string): Promise<VersionedRow<T>[]>;
  /** Every partition that holds at least one row. */
  listPartitions(): Promise<string[]>;
  /**
   * Apply the operations atomically. Resolves once they are durable; rejects with
   * `ConditionFailedError` (nothing applied) when any condition does not hold.
   */
  write(partition: string, operations: WriteOperation<T>[]): Promise<VersionedRow<T>[]>;
  /**
   * Optional: read rows and apply a batch decided from them as one step, the partition's
   * writers taking turns from before the read, so nothing changes the rows in between and
   * `decide` runs once: racing writers wait in line instead of failing their conditions and
   * reading again. `keys`: the rows to read (those that exist are passed); omitted, every row
   * of the partition in `list` order. A throw from `decide` applies nothing. Callers go
   * through `readAndWrite` (read-and-write.ts), which drives a backend without it optimistically.
   */
  readAndWrite?<Result>(partition: string, keys: string[] | undefined, decide: (rows: VersionedRow<T>[]) => WriteDecision<T, Result>): Promise<Result>;
}

/** What a read-and-write decided from the rows it read: the batch (conditional as usual, may be empty) and its answer. */
export interface WriteDecision<T, Result> {
  operations: WriteOperation<T>[];
  result: Result;
}

export class ConditionFailedError extends Error {
  constructor(
    readonly table: string,
    readonly key: string,
    options?: { cause?: unknown },
  ) {
    super(`Conditional write on ${table}/${key} failed: the row changed.`, options);
    this.name = 'ConditionFailedError';
  }
}

/** Opens the tables of one data folder; closing flushes them. */
export interface Storage {
  table<T>(name: string): TableStore<T>;
  close(): Promise<void>;
}
