import { constants, fsyncSync, ftruncateSync, writeSync } from 'node:fs';
import { open, readdir, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFolderDurably, syncFolder } from './durable-file.js';

/**
 * Told, synchronously and before any append promise settles, whether the line reached the
 * disk: the caller publishes or drops what the line describes before anyone can observe
 * the outcome.
 */
export type AppendOutcome = (written: boolean) => void;

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
  outcome: AppendOutcome | undefined;
}

/** The two system calls a log write makes; replaceable so tests can inject a full disk. */
export interface LogFileCalls {
  write: (fd: number, bytes: Buffer, offset: number, length: number) => number;
  truncate: (fd: number, length: number) => void;
}

const systemCalls: LogFileCalls = {
  write: (fd, bytes, offset, length) => writeSync(fd, bytes, offset, length),
  truncate: (fd, length) => ftruncateSync(fd, length),
};

/** The log could not undo a failed append; it refuses every later one rather than write after a torn line. */
export class WriteAheadLogBrokenError extends Error {
  constructor(segmentPath: string, cause: unknown) {
    super(`The write-ahead log segment ${segmentPath} could not be cut back after a failed write (${(cause as Error).message}); no write is accepted until the service restarts.`, { cause });
    this.name = 'WriteAheadLogBrokenError';
  }
}

/**
 * An append-only log of JSON lines in numbered segment files (`000001.log`, ...), opened
 * with O_DSYNC: an append resolves once its bytes are on disk. Appends made during one turn
 * of the event loop are gathered into a single write at the end of it (group commit), so N
 * concurrent writers cost far fewer than N disk syncs, whatever they touch.
 *
 * The write is synchronous, on purpose: it blocks the event loop for one disk sync (~0.3-0.6
 * ms here) instead of waiting for a thread-pool thread and then for the loop to wake up,
 * which on a busy two-core machine made the same sync take 2 ms at p90 (docs/storage.md).
 * The log does not know what a line means.
 *
 * A write that fails (a full disk: a short write, then ENOSPC) fails every append of its
 * group, and the segment is cut back to the end of the last complete group, so no torn
 * line sits before later lines. If even that fails, the log refuses every later append.
 */
export class WriteAheadLog {
  private segment: { number: number; handle: FileHandle } | undefined;
  private bytesInSegment = 0;
  private queued: string[] = [];
  private waiters: Waiter[] = [];
  private scheduled: Promise<void> | undefined;
  private broken: WriteAheadLogBrokenError | undefined;

  constructor(
    private readonly folder: string,
    private readonly calls: LogFileCalls = systemCalls,
  ) {}

  /** Size of the segment being appended to, to decide when to start a new one. */
  get currentSegmentBytes(): number {
    return this.bytesInSegment;
  }

  /**
   * Every complete line of the segments left on disk, oldest first. A torn last line of the
   * newest segment that holds anything is an append that was never acknowledged (the process
   * died mid-write; a segment created after it, by a rotation that had not switched yet, is
   * empty) and is dropped; an incomplete line anywhere else is damage, and an error.
   */
  async readExisting(): Promise<{ lines: string[]; segments: number[] }> {
    const segments = await this.segmentNumbers();
    const texts = await Promise.all(segments.map((number) => readFile(this.segmentPath(number), 'utf8')));
    const newestWritten = texts.findLastIndex((text) => text !== '');
    const lines: string[] = [];
    for (const [index, text] of texts.entries()) {
      const segmentLines = text.split('\n');
      const tail = segmentLines.pop() ?? '';
      if (tail !== '' && index !== newestWritten) throw new Error(`Write-ahead log segment ${this.segmentPath(segments[index]!)} ends in an incomplete line; the data folder is damaged.`);
      lines.push(...segmentLines.filter((line) => line !== ''));
    }
    return { lines, segments };
  }

  /** Start appending to a first segment, numbered after every segment on disk. */
  async open(): Promise<void> {
    this.segment = await this.createSegment();
    this.bytesInSegment = 0;
  }

  /**
   * Move appends to a new segment and return the numbers of the older ones. `onSwitch` runs
   * at the moment of the switch: every line written to an older segment was appended before
   * it, every line written after it goes to the new one (lines still queued included).
   */
  async rotate(onSwitch: () => void): Promise<number[]> {
    const created = await this.createSegment();
    const previous = this.segment;
    this.segment = created;
    this.bytesInSegment = 0;
    onSwitch();
    await previous?.handle.close();
    return (await this.segmentNumbers()).filter((number) => number < created.number);
  }

  /**
   * Resolves once the line is on disk (with every line appended before it); `outcome` is
   * called first, synchronously, with the same answer.
   */
  append(line: string, outcome?: AppendOutcome): Promise<void> {
    const refusal = this.broken ?? (this.segment ? undefined : new Error('The write-ahead log is not open.'));
    if (refusal) {
      outcome?.(false);
      return Promise.reject(refusal);
    }
    return new Promise<void>((resolve, reject) => {
      this.queued.push(`${line}\n`);
      this.waiters.push({ resolve, reject, outcome });
      this.scheduled ??= new Promise<void>((written) =>
        setImmediate(() => {
          this.scheduled = undefined;
          this.writeQueued();
          written();
        }),
      );
    });
  }

  /** Wait until every line appended so far is on disk. */
  async settle(): Promise<void> {
    while (this.scheduled) await this.scheduled;
  }

  /** Delete segments whose every line is now in the partition files. */
  async removeSegments(numbers: number[]): Promise<void> {
    for (const number of numbers) await unlink(this.segmentPath(number)).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? undefined : Promise.reject(error)));
  }

  async close(): Promise<void> {
    await this.settle();
    await this.segment?.handle.close();
    this.segment = undefined;
  }

  /** The numbers of the segment files on disk, oldest first. */
  async segmentNumbers(): Promise<number[]> {
    let files: string[];
    try {
      files = await readdir(this.folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    return files
      .filter((file) => /^\d{6,}\.log$/.test(file))
      .map((file) => Number(file.slice(0, -4)))
      .sort((a, b) => a - b);
  }

  private writeQueued(): void {
    const bytes = Buffer.from(this.queued.join(''), 'utf8');
    const waiters = this.waiters;
    this.queued = [];
    this.waiters = [];
    const failure = this.writeGroup(bytes);
    for (const waiter of waiters) waiter.outcome?.(failure === undefined);
    for (const waiter of waiters) {
      if (failure === undefined) waiter.resolve();
      else waiter.reject(failure);
    }
  }

  /** Write one group; on failure, cut the segment back to where the group started. */
  private writeGroup(bytes: Buffer): unknown {
    if (this.broken) return this.broken;
    const segment = this.segment;
    if (!segment) return new Error('The write-ahead log was closed.');
    try {
      for (let offset = 0; offset < bytes.length; ) offset += this.calls.write(segment.handle.fd, bytes, offset, bytes.length - offset);
      this.bytesInSegment += bytes.length;
      return undefined;
    } catch (error) {
      try {
        // Synchronous, so no other group is written between the failure and the cut.
        this.calls.truncate(segment.handle.fd, this.bytesInSegment);
        fsyncSync(segment.handle.fd);
      } catch (truncateError) {
        this.broken = new WriteAheadLogBrokenError(this.segmentPath(segment.number), truncateError);
      }
      return error;
    }
  }

  private async createSegment(): Promise<{ number: number; handle: FileHandle }> {
    if (this.broken) throw this.broken;
    await makeFolderDurably(this.folder);
    const number = Math.max(0, ...(await this.segmentNumbers()), this.segment?.number ?? 0) + 1;
    const handle = await open(this.segmentPath(number), constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC, 0o600);
    // The new file's name must be on disk before anything acknowledged is written into it.
    await syncFolder(this.folder);
    return { number, handle };
  }

  private segmentPath(number: number): string {
    return join(this.folder, `${String(number).padStart(6, '0')}.log`);
  }
}
