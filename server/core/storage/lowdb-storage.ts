import { join } from 'node:path';
import { LowdbTable, type Journal } from './lowdb-table.js';
import { PartitionCache } from './partition-cache.js';
import type { Partition, RowImage } from './partition.js';
import type { Storage, TableStore, VersionedRow, WriteOperation } from './table-store.js';
import { WriteAheadLog, type LogFileCalls } from './write-ahead-log.js';

/** One line of the write-ahead log: the rows a batch left behind in one partition. */
interface LogRecord<T> {
  table: string;
  partition: string;
  rows: RowImage<T>[];
}

export interface LowdbStorageOptions {
  /** Start a new log segment, and rewrite the partitions the older ones changed, past this size (default 4 MiB). */
  checkpointBytes?: number;
  /** Partitions kept in memory, estimated by their serialized size; clean ones past it are dropped, least recently used first (default 256 MiB). */
  cacheBytes?: number;
  /** @internal The system calls of log writes, for tests that inject a full disk. */
  logFileCalls?: LogFileCalls;
}

export const defaultCacheBytes = 256 * 1024 * 1024;

/**
 * Storage on lowdb: a folder per table, a JSON file per partition, and a write-ahead log.
 * A write is acknowledged, and visible to readers, once its line is in the log (one O_DSYNC
 * write, shared by every write made in the same event-loop turn); the partition files are
 * rewritten at checkpoints, when the log segment grows past 4 MiB and on close. On open,
 * the log left by a process that died is replayed into the partition files first. See
 * docs/storage.md.
 */
export class LowdbStorage implements Storage {
  private readonly tables = new Map<string, LowdbTable<unknown>>();
  private readonly log: WriteAheadLog;
  private recovered: Promise<void> | undefined;
  /** Partitions changed since the segment being appended to was started. */
  private dirty = new Set<Partition<unknown>>();
  private checkpointing: Promise<void> | undefined;
  private readonly cache: PartitionCache;
  private readonly journal: Journal;
  private readonly checkpointBytes: number;

  constructor(
    private readonly folder: string,
    options: LowdbStorageOptions = {},
  ) {
    this.log = new WriteAheadLog(join(folder, 'log'), options.logFileCalls);
    this.checkpointBytes = options.checkpointBytes ?? 4 * 1024 * 1024;
    this.cache = new PartitionCache(options.cacheBytes ?? defaultCacheBytes, (partition) => this.tableNamed(partition.table).forget(partition));
    this.journal = {
      ready: () => (this.recovered ??= this.recover()),
      cache: this.cache,
      commit: (partition, operations) => this.commit(partition, operations),
    };
  }

  table<T>(name: string): TableStore<T> {
    return this.tableNamed(name) as unknown as TableStore<T>;
  }

  /** The partitions held in memory and their estimated size (for tests and measurements). */
  get memory(): { partitions: number; bytes: number } {
    return { partitions: this.cache.size, bytes: this.cache.bytes };
  }

  /** Write every changed partition to its file and remove the log; the folder is then self-contained. */
  async close(): Promise<void> {
    if (!this.recovered) return;
    await this.recovered;
    await this.checkpointing;
    await this.log.close();
    const segments = await this.log.segmentNumbers();
    await this.writeFiles(this.dirty);
    this.dirty.clear();
    await this.log.removeSegments(segments);
    this.recovered = undefined;
  }

  private tableNamed(name: string): LowdbTable<unknown> {
    let table = this.tables.get(name);
    if (!table) {
      table = new LowdbTable<unknown>(name, join(this.folder, name), this.journal);
      this.tables.set(name, table);
    }
    return table;
  }

  /**
   * Stage the batch (its conditions checked now, synchronously, so nothing interleaves),
   * append its line, and publish it the moment the line is on disk; a failed log write
   * drops it, with every other batch of that write.
   */
  private async commit<T>(partition: Partition<T>, operations: WriteOperation<T>[]): Promise<VersionedRow<T>[]> {
    const { written, images } = partition.stage(operations);
    const held = partition as Partition<unknown>;
    this.cache.update(held);
    const record: LogRecord<T> = { table: partition.table, partition: partition.key, rows: images };
    const line = JSON.stringify(record);
    const appended = this.log.append(line, (durable) => {
      partition.settle(images, durable, line.length);
      if (durable) this.dirty.add(held);
      this.cache.update(held);
    });
    partition.pending ??= appended.then(
      () => undefined,
      () => undefined,
    );
    await appended;
    if (this.log.currentSegmentBytes > this.checkpointBytes) {
      // In the background. A checkpoint that fails (disk full) loses nothing: the older
      // segments stay, their partitions stay dirty, and the next checkpoint covers them.
      this.checkpointing ??= this.checkpoint()
        .catch(() => undefined)
        .finally(() => (this.checkpointing = undefined));
    }
    return written;
  }

  /**
   * Write partitions to their files, then fsync each table folder written once: until then a
   * replaced file's new name may not survive a power cut, so nothing may rely on the files
   * (delete the log segments they replace) before this resolves. One folder sync per table
   * rather than per file: a checkpoint after many new conversations writes thousands of files.
   */
  private async writeFiles(partitions: Iterable<Partition<unknown>>): Promise<void> {
    const tables = new Set<LowdbTable<unknown>>();
    for (const partition of partitions) {
      const table = this.tableNamed(partition.table);
      await table.writeFile(partition);
      tables.add(table);
      this.cache.update(partition);
    }
    for (const table of tables) await table.syncFolder();
  }

  /**
   * Move to a new log segment, rewrite every partition the older segments changed, then
   * delete them. A crash at any point leaves either the old segments (replayed on open) or
   * partition files that already hold what they said.
   */
  private async checkpoint(): Promise<void> {
    let changed = new Set<Partition<unknown>>();
    const older = await this.log.rotate(() => {
      changed = this.dirty;
      this.dirty = new Set();
    });
    try {
      await this.writeFiles(changed);
    } catch (error) {
      for (const partition of changed) this.dirty.add(partition);
      throw error;
    }
    await this.log.removeSegments(older);
  }

  /** Replay what a process that died left in the log, write it into the partition files, and start a fresh log. */
  private async recover(): Promise<void> {
    const { lines, segments } = await this.log.readExisting();
    const replayed = new Set<Partition<unknown>>();
    for (const [index, line] of lines.entries()) {
      let record: LogRecord<unknown>;
      try {
        record = JSON.parse(line) as LogRecord<unknown>;
      } catch (error) {
        throw new Error(`Line ${index + 1} of the write-ahead log in ${join(this.folder, 'log')} is not valid JSON; the data folder is damaged: ${(error as Error).message}`, { cause: error });
      }
      const partition = await this.tableNamed(record.table).open(record.partition);
      partition.replay(record.rows);
      this.cache.update(partition);
      replayed.add(partition);
    }
    await this.writeFiles(replayed);
    await this.log.removeSegments(segments);
    await this.log.open();
  }
}
