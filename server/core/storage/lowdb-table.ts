import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { makeFolderDurably, syncFolder } from './durable-file.js';
import { DurableJsonAdapter } from './durable-json-adapter.js';
import { ownRow, Partition, withoutPrototype, type PartitionDocument } from './partition.js';
import type { PartitionCache } from './partition-cache.js';
import type { TableStore, VersionedRow, WriteOperation } from './table-store.js';

/** What a table needs from its storage: recovery done first, the cache, and the log to commit to. */
export interface Journal {
  ready(): Promise<void>;
  readonly cache: PartitionCache;
  commit<T>(partition: Partition<T>, operations: WriteOperation<T>[]): Promise<VersionedRow<T>[]>;
}

function partitionFileName(partition: string): string {
  return `${createHash('sha256').update(partition).digest('hex').slice(0, 40)}.json`;
}

/**
 * One table: a folder with a file per partition, and the partitions in memory that the
 * cache holds. A lookup of a partition that has no file and is not in memory keeps
 * nothing: only a write creates a partition.
 */
export class LowdbTable<T> implements TableStore<T> {
  /** Partitions in memory, or being read from their files. */
  private readonly partitions = new Map<string, Partition<T> | Promise<Partition<T>>>();
  /**
   * The partition files in the folder, listed once: only this process writes them (the
   * data-folder lock), so a partition that has no file is new, or empty, and needs no read.
   */
  private files: Promise<Set<string>> | undefined;
  private folderMade: Promise<void> | undefined;
  /** Files were replaced since the folder was last fsynced. */
  private unsyncedFiles = false;

  constructor(
    readonly name: string,
    private readonly folder: string,
    private readonly journal: Journal,
  ) {}

  /** @internal The partition, created empty if it does not exist (writes and recovery). */
  async open(partition: string): Promise<Partition<T>> {
    for (;;) {
      const found = await this.lookup(partition, true);
      // A partition the cache dropped meanwhile must not be written: its file would be read again.
      if (found && !found.evicted) return found;
    }
  }

  /** @internal The cache dropped this partition. */
  forget(partition: Partition<T>): void {
    if (this.partitions.get(partition.key) === partition) this.partitions.delete(partition.key);
  }

  /**
   * @internal Write a partition's published rows to its file. The file is replaced, but its
   * new name is durable only after `syncFolder`: the storage writes its partitions, syncs each
   * table's folder once, and only then relies on the files (deletes the log they replace).
   */
  async writeFile(partition: Partition<T>): Promise<void> {
    this.folderMade ??= makeFolderDurably(this.folder).catch((error: unknown) => {
      this.folderMade = undefined;
      throw error;
    });
    await this.folderMade;
    await partition.writeFile();
    // Set once the rename is done: a folder sync that began before it does not cover it.
    this.unsyncedFiles = true;
    (await this.fileNames()).add(partitionFileName(partition.key));
  }

  /** @internal Make the names of the files written so far durable: one folder fsync for all of them. */
  async syncFolder(): Promise<void> {
    if (!this.unsyncedFiles) return;
    // Cleared before the sync: a file renamed while it runs marks the folder again.
    this.unsyncedFiles = false;
    try {
      await syncFolder(this.folder);
    } catch (error) {
      this.unsyncedFiles = true;
      throw error;
    }
  }

  /** @internal Partitions in memory (for listing). */
  loaded(): Partition<T>[] {
    return [...this.partitions.values()].filter((entry) => entry instanceof Partition);
  }

  async get(partition: string, key: string): Promise<VersionedRow<T> | undefined> {
    await this.journal.ready();
    const found = await this.visible(partition);
    const row = found && ownRow(found.rows, key);
    return row ? { key, value: structuredClone(row.value), version: row.version } : undefined;
  }

  async list(partition: string): Promise<VersionedRow<T>[]> {
    await this.journal.ready();
    const rows = (await this.visible(partition))?.rows ?? {};
    return Object.entries(rows).map(([key, row]) => ({ key, value: structuredClone(row.value), version: row.version }));
  }

  async listPartitions(): Promise<string[]> {
    await this.journal.ready();
    let files: string[];
    try {
      files = await readdir(this.folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      files = [];
    }
    const names = new Set<string>();
    for (const file of files.filter((name) => name.endsWith('.json') && !name.startsWith('.'))) {
      const database = new Low<PartitionDocument<T> | null>(new DurableJsonAdapter(join(this.folder, file)), null);
      await database.read();
      if (database.data && Object.keys(database.data.rows).length > 0) names.add(database.data.partition);
    }
    // Partitions in memory are the newer truth: written since the last checkpoint, or emptied.
    for (const loaded of this.loaded()) {
      if (Object.keys(loaded.rows).length > 0) names.add(loaded.key);
      else names.delete(loaded.key);
    }
    return [...names];
  }

  async write(partition: string, operations: WriteOperation<T>[]): Promise<VersionedRow<T>[]> {
    await this.journal.ready();
    return this.journal.commit(await this.open(partition), operations);
  }

  /**
   * The partition as readers may see it: once the log write holding its staged changes is
   * done, so a reader never sees a change that is not durable, and does see every write
   * that was made before it asked. `undefined` when it does not exist (kept nowhere).
   */
  private async visible(partition: string): Promise<Partition<T> | undefined> {
    const found = await this.lookup(partition, false);
    if (found?.pending) await found.pending;
    return found;
  }

  private async lookup(partition: string, create: boolean): Promise<Partition<T> | undefined> {
    for (;;) {
      const entry = this.partitions.get(partition);
      if (entry) {
        const found = await entry;
        this.journal.cache.touch(found as Partition<unknown>);
        return found;
      }
      const files = await this.fileNames();
      if (this.partitions.has(partition)) continue;
      const fileName = partitionFileName(partition);
      const hasFile = files.has(fileName);
      if (!hasFile && !create) return undefined;
      const loading = this.read(partition, fileName, hasFile).then((loaded) => {
        if (this.partitions.get(partition) === loading) {
          this.partitions.set(partition, loaded);
          this.journal.cache.update(loaded as Partition<unknown>);
        }
        return loaded;
      });
      this.partitions.set(partition, loading);
      loading.catch(() => {
        if (this.partitions.get(partition) === loading) this.partitions.delete(partition);
      });
      return loading;
    }
  }

  private async read(partition: string, fileName: string, hasFile: boolean): Promise<Partition<T>> {
    const adapter = new DurableJsonAdapter<PartitionDocument<T>>(join(this.folder, fileName), { syncFolder: false });
    const database = new Low<PartitionDocument<T>>(adapter, { partition, rows: {} });
    if (hasFile) await database.read();
    database.data.rows = withoutPrototype(database.data.rows);
    return new Partition(this.name, partition, database, adapter);
  }

  private fileNames(): Promise<Set<string>> {
    this.files ??= readdir(this.folder).then(
      (names) => new Set(names),
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return new Set<string>();
        this.files = undefined;
        throw error;
      },
    );
    return this.files;
  }
}
