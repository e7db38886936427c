import type { Low } from 'lowdb';
import type { DurableJsonAdapter } from './durable-json-adapter.js';
import { ConditionFailedError, type VersionedRow, type WriteOperation } from './table-store.js';

/** A stored row: its value and how many times it was written. */
export interface StoredRow<T> {
  value: T;
  version: number;
}

/** What one partition file holds. The partition key is kept inside: file names are hashes. */
export interface PartitionDocument<T> {
  partition: string;
  rows: Record<string, StoredRow<T>>;
}

/** One row's state after a write: the row, or `null` once deleted. */
export type RowImage<T> = [key: string, row: StoredRow<T> | null];

/**
 * One partition of a table, in memory. Its lowdb document holds the **published** rows:
 * those whose every change is in the write-ahead log, the only ones readers see. A write
 * is first **staged**: its conditions are checked against the newest state (published,
 * then staged), so two conflicting writes in one event-loop turn cannot both pass; it is
 * published once its log line is on disk, or dropped if that write fails.
 */
export class Partition<T> {
  /** The newest staged row per key (`null`: deleted), until the log write holding them is done. */
  private readonly staged = new Map<string, StoredRow<T> | null>();
  private stagedWrites = 0;
  /** Settles once the log write holding the staged changes is done, either way. */
  pending: Promise<void> | undefined;
  /** Published changes so far, and how many of them its file holds: equal means the file is up to date. */
  private changes = 0;
  private changesInFile = 0;
  /** An estimate of its size in memory, for the cache's budget: its serialized length, plus the log lines published since. */
  bytes: number;
  private loggedBytes = 0;
  /** Set once the cache dropped it: a writer holding it must open the partition again. */
  evicted = false;

  constructor(
    readonly table: string,
    readonly key: string,
    readonly database: Low<PartitionDocument<T>>,
    private readonly adapter: DurableJsonAdapter<PartitionDocument<T>>,
  ) {
    this.bytes = adapter.bytes || Buffer.byteLength(key) + 32;
  }

  /** The published rows: what readers see. */
  get rows(): Record<string, StoredRow<T>> {
    return this.database.data.rows;
  }

  /** Neither staged nor published changes that its file lacks: the cache may drop it. */
  get clean(): boolean {
    return this.stagedWrites === 0 && this.changes === this.changesInFile;
  }

  /**
   * Check every condition against the newest state and stage the batch; throws
   * `ConditionFailedError` (nothing staged) when one does not hold. Returns the rows
   * written and the post-images for the log line.
   */
  stage(operations: WriteOperation<T>[]): { written: VersionedRow<T>[]; images: RowImage<T>[] } {
    for (const operation of operations) {
      if (operation.expectedVersion === undefined) continue;
      const current = this.newest(operation.key);
      const holds = operation.expectedVersion === null ? current === undefined : current?.version === operation.expectedVersion;
      if (!holds) throw new ConditionFailedError(this.table, operation.key);
    }
    // Built aside first: a value that cannot be cloned fails the batch with nothing staged.
    const batch = new Map<string, StoredRow<T> | null>();
    const written: VersionedRow<T>[] = [];
    const images: RowImage<T>[] = [];
    for (const operation of operations) {
      if (operation.type === 'delete') {
        batch.set(operation.key, null);
        images.push([operation.key, null]);
        continue;
      }
      const previous = batch.has(operation.key) ? batch.get(operation.key) : this.newest(operation.key);
      const row = { value: structuredClone(operation.value), version: (previous?.version ?? 0) + 1 };
      batch.set(operation.key, row);
      images.push([operation.key, row]);
      written.push({ key: operation.key, value: structuredClone(operation.value), version: row.version });
    }
    for (const [key, row] of batch) this.staged.set(key, row);
    this.stagedWrites += 1;
    return { written, images };
  }

  /**
   * The log write of a staged batch is done: publish it (in the order staged), or drop it.
   * Every batch of one log write shares its outcome, so the staged state empties with it.
   */
  settle(images: RowImage<T>[], written: boolean, logBytes: number): void {
    if (written) {
      this.replay(images);
      this.loggedBytes += logBytes;
      this.bytes += logBytes;
    }
    this.stagedWrites -= 1;
    if (this.stagedWrites === 0) {
      this.staged.clear();
      this.pending = undefined;
    }
  }

  /** Apply logged post-images to the published rows (a settled write, or recovery). */
  replay(images: RowImage<T>[]): void {
    const rows = this.rows;
    for (const [key, row] of images) {
      if (row === null) delete rows[key];
      else rows[key] = row;
    }
    this.changes += 1;
  }

  /** Write the published rows to the partition file, and measure them again. */
  async writeFile(): Promise<void> {
    const changes = this.changes;
    const loggedBytes = this.loggedBytes;
    await this.database.write();
    this.changesInFile = Math.max(this.changesInFile, changes);
    this.bytes = this.adapter.bytes + (this.loggedBytes - loggedBytes);
  }

  private newest(key: string): StoredRow<T> | undefined {
    if (this.staged.has(key)) return this.staged.get(key) ?? undefined;
    return ownRow(this.rows, key);
  }
}

/**
 * Row keys come from clients (agent ids, conversation keys...), so the rows object has no
 * prototype: `constructor` or `__proto__` are keys like any other, never inherited members.
 */
export function ownRow<T>(rows: Record<string, StoredRow<T>>, key: string): StoredRow<T> | undefined {
  return Object.hasOwn(rows, key) ? rows[key] : undefined;
}

export function withoutPrototype<T>(rows: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, rows);
}
