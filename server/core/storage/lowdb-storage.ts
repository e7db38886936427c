import { createHash } from 'node:crypto';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { DurableJsonAdapter } from './durable-json-adapter.js';
import { ConditionFailedError, type Storage, type TableStore, type VersionedRow, type WriteOperation } from './table-store.js';

/** What one partition file holds. The partition key is kept inside: file names are hashes. */
interface PartitionDocument<T> {
  partition: string;
  rows: Record<string, { value: T; version: number }>;
}

interface PendingFlush {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * One partition: a lowdb document in its own file. Writes change the in-memory document
 * synchronously (so a condition check and its write cannot interleave with another writer)
 * and then wait for a flush; writes that arrive while a flush is on disk are grouped into the
 * next one (group commit), so a burst of N writes costs far fewer than N fsyncs.
 */
class Partition<T> {
  private flushing = false;
  private next: PendingFlush | undefined;

  constructor(readonly database: Low<PartitionDocument<T>>) {}

  apply(tableName: string, operations: WriteOperation<T>[]): VersionedRow<T>[] {
    const rows = this.database.data.rows;
    for (const operation of operations) {
      const current = ownRow(rows, operation.key);
      if (operation.expectedVersion === undefined) continue;
      const holds = operation.expectedVersion === null ? current === undefined : current?.version === operation.expectedVersion;
      if (!holds) throw new ConditionFailedError(tableName, operation.key);
    }
    const written: VersionedRow<T>[] = [];
    for (const operation of operations) {
      if (operation.type === 'delete') {
        delete rows[operation.key];
        continue;
      }
      const version = (ownRow(rows, operation.key)?.version ?? 0) + 1;
      rows[operation.key] = { value: structuredClone(operation.value), version };
      written.push({ key: operation.key, value: structuredClone(operation.value), version });
    }
    return written;
  }

  /** Resolves when everything applied so far is on disk. */
  flush(): Promise<void> {
    if (!this.next) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((resolvePromise, rejectPromise) => {
        resolve = resolvePromise;
        reject = rejectPromise;
      });
      this.next = { promise, resolve, reject };
    }
    const waiting = this.next.promise;
    if (!this.flushing) void this.drain();
    return waiting;
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    while (this.next) {
      const current = this.next;
      this.next = undefined;
      try {
        await this.database.write();
        current.resolve();
      } catch (error) {
        current.reject(error);
      }
    }
    this.flushing = false;
  }
}

/**
 * Row keys come from clients (agent ids, conversation keys...), so the rows object has no
 * prototype: `constructor` or `__proto__` are keys like any other, never inherited members.
 */
function ownRow<T>(rows: Record<string, { value: T; version: number }>, key: string): { value: T; version: number } | undefined {
  return Object.hasOwn(rows, key) ? rows[key] : undefined;
}

function withoutPrototype<T>(rows: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, rows);
}

function partitionFileName(partition: string): string {
  return `${createHash('sha256').update(partition).digest('hex').slice(0, 40)}.json`;
}

class LowdbTable<T> implements TableStore<T> {
  private readonly partitions = new Map<string, Promise<Partition<T>>>();
  private folderReady: Promise<unknown> | undefined;

  constructor(
    readonly name: string,
    private readonly folder: string,
  ) {}

  private open(partition: string): Promise<Partition<T>> {
    let opened = this.partitions.get(partition);
    if (!opened) {
      opened = this.load(partition);
      this.partitions.set(partition, opened);
      opened.catch(() => this.partitions.delete(partition));
    }
    return opened;
  }

  private async load(partition: string): Promise<Partition<T>> {
    this.folderReady ??= mkdir(this.folder, { recursive: true, mode: 0o700 });
    await this.folderReady;
    const database = new Low<PartitionDocument<T>>(new DurableJsonAdapter(join(this.folder, partitionFileName(partition))), { partition, rows: {} });
    await database.read();
    database.data.rows = withoutPrototype(database.data.rows);
    return new Partition(database);
  }

  async get(partition: string, key: string): Promise<VersionedRow<T> | undefined> {
    const row = ownRow((await this.open(partition)).database.data.rows, key);
    return row ? { key, value: structuredClone(row.value), version: row.version } : undefined;
  }

  async list(partition: string): Promise<VersionedRow<T>[]> {
    const rows = (await this.open(partition)).database.data.rows;
    return Object.entries(rows).map(([key, row]) => ({ key, value: structuredClone(row.value), version: row.version }));
  }

  async listPartitions(): Promise<string[]> {
    let files: string[];
    try {
      files = await readdir(this.folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const names = new Set<string>();
    for (const file of files.filter((name) => name.endsWith('.json') && !name.startsWith('.'))) {
      const database = new Low<PartitionDocument<T> | null>(new DurableJsonAdapter(join(this.folder, file)), null);
      await database.read();
      if (database.data && Object.keys(database.data.rows).length > 0) names.add(database.data.partition);
    }
    // Partitions written in this process but whose first flush is still pending.
    for (const [partition, opened] of this.partitions) {
      if (names.has(partition)) continue;
      const loaded = await opened.catch(() => undefined);
      if (loaded && Object.keys(loaded.database.data.rows).length > 0) names.add(partition);
    }
    return [...names];
  }

  async write(partition: string, operations: WriteOperation<T>[]): Promise<VersionedRow<T>[]> {
    const opened = await this.open(partition);
    const written = opened.apply(this.name, operations);
    await opened.flush();
    return written;
  }

  /** Wait for every pending flush. */
  async settle(): Promise<void> {
    for (const opened of this.partitions.values()) {
      const partition = await opened.catch(() => undefined);
      await partition?.flush();
    }
  }
}

/**
 * Storage on lowdb: a folder per table, a JSON file per partition. The cost of a write is
 * the size of its own partition, not of the whole data set.
 */
export class LowdbStorage implements Storage {
  private readonly tables = new Map<string, LowdbTable<unknown>>();

  constructor(private readonly folder: string) {}

  table<T>(name: string): TableStore<T> {
    let table = this.tables.get(name);
    if (!table) {
      table = new LowdbTable<unknown>(name, join(this.folder, name));
      this.tables.set(name, table);
    }
    return table as unknown as TableStore<T>;
  }

  async close(): Promise<void> {
    for (const table of this.tables.values()) await table.settle();
  }
}
