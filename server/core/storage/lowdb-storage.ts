import { createHash } from 'node:crypto';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { DurableJsonAdapter } from './durable-json-adapter.js';
import { WriteAheadLog } from './write-ahead-log.js';
import { ConditionFailedError, type Storage, type TableStore, type VersionedRow, type WriteOperation } from './table-store.js';

/** What one partition file holds. The partition key is kept inside: file names are hashes. */
interface PartitionDocument<T> {
  partition: string;
  rows: Record<string, { value: T; version: number }>;
}

/** One row's state after a write: the row, or `null` once deleted. */
type RowImage<T> = [key: string, row: { value: T; version: number } | null];

/** One line of the write-ahead log: the rows a batch left behind in one partition. */
interface LogRecord<T> {
  table: string;
  partition: string;
  rows: RowImage<T>[];
}

/**
 * One partition: a lowdb document in its own file, kept in memory. A write checks its
 * conditions and changes the document synchronously (so a condition check and its write
 * cannot interleave with another writer), and is durable once its log line is; the file is
 * rewritten later, at a checkpoint.
 */
class Partition<T> {
  constructor(readonly database: Low<PartitionDocument<T>>) {}

  apply(tableName: string, operations: WriteOperation<T>[]): { written: VersionedRow<T>[]; images: RowImage<T>[] } {
    const rows = this.database.data.rows;
    for (const operation of operations) {
      const current = ownRow(rows, operation.key);
      if (operation.expectedVersion === undefined) continue;
      const holds = operation.expectedVersion === null ? current === undefined : current?.version === operation.expectedVersion;
      if (!holds) throw new ConditionFailedError(tableName, operation.key);
    }
    const written: VersionedRow<T>[] = [];
    const images: RowImage<T>[] = [];
    for (const operation of operations) {
      if (operation.type === 'delete') {
        delete rows[operation.key];
        images.push([operation.key, null]);
        continue;
      }
      const version = (ownRow(rows, operation.key)?.version ?? 0) + 1;
      const row = { value: structuredClone(operation.value), version };
      rows[operation.key] = row;
      images.push([operation.key, row]);
      written.push({ key: operation.key, value: structuredClone(operation.value), version });
    }
    return { written, images };
  }

  /** Apply a logged batch again (recovery): the rows end as the newest line left them. */
  replay(images: RowImage<T>[]): void {
    const rows = this.database.data.rows;
    for (const [key, row] of images) {
      if (row === null) delete rows[key];
      else rows[key] = row;
    }
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

/** What a table needs from its storage: recovery done first, and the log to commit to. */
interface Journal {
  ready(): Promise<void>;
  commit(partition: Partition<unknown>, line: string): Promise<void>;
}

class LowdbTable<T> implements TableStore<T> {
  private readonly partitions = new Map<string, Promise<Partition<T>>>();
  /**
   * The partition files in the folder, listed once: only this process writes them (the
   * data-folder lock), so a partition that has no file is new and needs no read.
   */
  private files: Promise<Set<string>> | undefined;

  constructor(
    readonly name: string,
    private readonly folder: string,
    private readonly journal: Journal,
  ) {}

  /** @internal The partition, loaded from its file if needed (recovery calls it before `ready`). */
  open(partition: string): Promise<Partition<T>> {
    let opened = this.partitions.get(partition);
    if (!opened) {
      opened = this.load(partition);
      this.partitions.set(partition, opened);
      opened.catch(() => this.partitions.delete(partition));
    }
    return opened;
  }

  private async load(partition: string): Promise<Partition<T>> {
    this.files ??= mkdir(this.folder, { recursive: true, mode: 0o700 }).then(async () => new Set(await readdir(this.folder)));
    const files = await this.files;
    const fileName = partitionFileName(partition);
    const database = new Low<PartitionDocument<T>>(new DurableJsonAdapter(join(this.folder, fileName)), { partition, rows: {} });
    if (files.has(fileName)) await database.read();
    else files.add(fileName); // written at the next checkpoint
    database.data.rows = withoutPrototype(database.data.rows);
    return new Partition(database);
  }

  async get(partition: string, key: string): Promise<VersionedRow<T> | undefined> {
    await this.journal.ready();
    const row = ownRow((await this.open(partition)).database.data.rows, key);
    return row ? { key, value: structuredClone(row.value), version: row.version } : undefined;
  }

  async list(partition: string): Promise<VersionedRow<T>[]> {
    await this.journal.ready();
    const rows = (await this.open(partition)).database.data.rows;
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
    // Loaded partitions are the newer truth: written since the last checkpoint, or emptied.
    for (const [partition, opened] of this.partitions) {
      const loaded = await opened.catch(() => undefined);
      if (!loaded) continue;
      if (Object.keys(loaded.database.data.rows).length > 0) names.add(partition);
      else names.delete(partition);
    }
    return [...names];
  }

  async write(partition: string, operations: WriteOperation<T>[]): Promise<VersionedRow<T>[]> {
    await this.journal.ready();
    const opened = await this.open(partition);
    const { written, images } = opened.apply(this.name, operations);
    const record: LogRecord<T> = { table: this.name, partition, rows: images };
    await this.journal.commit(opened as Partition<unknown>, JSON.stringify(record));
    return written;
  }
}

export interface LowdbStorageOptions {
  /** Start a new log segment, and rewrite the partitions the older ones changed, past this size (default 4 MiB). */
  checkpointBytes?: number;
}

/**
 * Storage on lowdb: a folder per table, a JSON file per partition, and a write-ahead log.
 * A write is acknowledged once its line is in the log (one O_DSYNC write, shared by every
 * write made in the same event-loop turn); the partition files are rewritten at checkpoints, when the
 * log segment grows past 4 MiB and on close. On open, the log left by a process that died is
 * replayed into the partition files first. See docs/storage.md.
 */
export class LowdbStorage implements Storage {
  private readonly tables = new Map<string, LowdbTable<unknown>>();
  private readonly log: WriteAheadLog;
  private recovered: Promise<void> | undefined;
  /** Partitions changed since the segment being appended to was started. */
  private dirty = new Set<Partition<unknown>>();
  private checkpointing: Promise<void> | undefined;
  private readonly journal: Journal = {
    ready: () => (this.recovered ??= this.recover()),
    commit: (partition, line) => this.commit(partition, line),
  };

  private readonly checkpointBytes: number;

  constructor(
    private readonly folder: string,
    options: LowdbStorageOptions = {},
  ) {
    this.log = new WriteAheadLog(join(folder, 'log'));
    this.checkpointBytes = options.checkpointBytes ?? 4 * 1024 * 1024;
  }

  table<T>(name: string): TableStore<T> {
    return this.tableNamed(name) as unknown as TableStore<T>;
  }

  /** Write every changed partition to its file and remove the log; the folder is then self-contained. */
  async close(): Promise<void> {
    if (!this.recovered) return;
    await this.recovered;
    await this.checkpointing;
    await this.log.close();
    const segments = await this.log.segmentNumbers();
    for (const partition of this.dirty) await partition.database.write();
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

  private async commit(partition: Partition<unknown>, line: string): Promise<void> {
    this.dirty.add(partition);
    await this.log.append(line);
    if (this.log.currentSegmentBytes > this.checkpointBytes) {
      // In the background. A checkpoint that fails (disk full) loses nothing: the older
      // segments stay, their partitions stay dirty, and the next checkpoint covers them.
      this.checkpointing ??= this.checkpoint()
        .catch(() => undefined)
        .finally(() => (this.checkpointing = undefined));
    }
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
      for (const partition of changed) await partition.database.write();
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
      replayed.add(partition);
    }
    for (const partition of replayed) await partition.database.write();
    await this.log.removeSegments(segments);
    await this.log.open();
  }
}
