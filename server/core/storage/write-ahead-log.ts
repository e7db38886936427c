import { constants } from 'node:fs';
import { mkdir, open, readdir, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { syncFolder } from './durable-file.js';

/**
 * An append-only log of JSON lines in numbered segment files (`000001.log`, ...), opened
 * with O_DSYNC: an append resolves once its bytes are on disk. Appends that arrive while one
 * is on disk are gathered into the next single write (group commit), so N concurrent writers
 * cost about two disk syncs, whatever they touch. The log does not know what a line means.
 */
export class WriteAheadLog {
  private segment: { number: number; handle: FileHandle } | undefined;
  private bytesInSegment = 0;
  private queued: string[] = [];
  private queuedWaiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  private writing: Promise<void> | undefined;
  private pendingSwitch: { number: number; handle: FileHandle; onSwitch: () => void; resolve: () => void } | undefined;

  constructor(private readonly folder: string) {}

  /** Size of the segment being appended to, to decide when to start a new one. */
  get currentSegmentBytes(): number {
    return this.bytesInSegment;
  }

  /**
   * Every complete line of the segments left on disk, oldest first. A torn last line of the
   * newest segment is an append that was never acknowledged (the process died mid-write) and
   * is dropped; an unreadable line anywhere else is damage, and an error.
   */
  async readExisting(): Promise<{ lines: string[]; segments: number[] }> {
    const segments = await this.segmentNumbers();
    const lines: string[] = [];
    for (const [index, number] of segments.entries()) {
      const text = await readFile(this.segmentPath(number), 'utf8');
      const segmentLines = text.split('\n');
      const tail = segmentLines.pop() ?? '';
      const isNewest = index === segments.length - 1;
      if (tail !== '' && !isNewest) throw new Error(`Write-ahead log segment ${this.segmentPath(number)} ends in an incomplete line; the data folder is damaged.`);
      lines.push(...segmentLines.filter((line) => line !== ''));
    }
    return { lines, segments };
  }

  /** Start appending to a first segment, numbered after every segment on disk. */
  async open(): Promise<void> {
    const created = await this.createSegment();
    this.segment = created;
    this.bytesInSegment = 0;
  }

  /**
   * Move appends to a new segment and return the numbers of the older ones. `onSwitch` runs
   * at the exact moment of the switch, with no append in flight: every line acknowledged
   * from an older segment was appended before it, every later line goes to the new one.
   */
  async rotate(onSwitch: () => void): Promise<number[]> {
    const created = await this.createSegment();
    await new Promise<void>((resolve) => {
      this.pendingSwitch = { ...created, onSwitch, resolve };
      if (!this.writing) this.switchSegment();
    });
    return (await this.segmentNumbers()).filter((number) => number < created.number);
  }

  /** Resolves once the line is on disk (with every line appended before it). */
  append(line: string): Promise<void> {
    if (!this.segment) return Promise.reject(new Error('The write-ahead log is not open.'));
    return new Promise<void>((resolve, reject) => {
      this.queued.push(`${line}\n`);
      this.queuedWaiters.push({ resolve, reject });
      this.writing ??= this.drain();
    });
  }

  /** Wait until every line appended so far is on disk. */
  async settle(): Promise<void> {
    while (this.writing) await this.writing;
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

  private async createSegment(): Promise<{ number: number; handle: FileHandle }> {
    await mkdir(this.folder, { recursive: true, mode: 0o700 });
    const number = Math.max(0, ...(await this.segmentNumbers()), this.segment?.number ?? 0) + 1;
    const handle = await open(this.segmentPath(number), constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC, 0o600);
    // The new file's name must be on disk before anything acknowledged is written into it.
    await syncFolder(this.folder);
    return { number, handle };
  }

  private switchSegment(): void {
    const next = this.pendingSwitch!;
    this.pendingSwitch = undefined;
    const previous = this.segment;
    this.segment = { number: next.number, handle: next.handle };
    this.bytesInSegment = 0;
    next.onSwitch();
    void previous?.handle.close().catch(() => undefined);
    next.resolve();
  }

  private async drain(): Promise<void> {
    while (this.queued.length > 0) {
      if (this.pendingSwitch) this.switchSegment();
      const text = this.queued.join('');
      const waiters = this.queuedWaiters;
      this.queued = [];
      this.queuedWaiters = [];
      try {
        const bytes = Buffer.from(text, 'utf8');
        await writeAll(this.segment!.handle, bytes);
        this.bytesInSegment += bytes.length;
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        for (const waiter of waiters) waiter.reject(error);
      }
    }
    if (this.pendingSwitch) this.switchSegment();
    this.writing = undefined;
  }

  private segmentPath(number: number): string {
    return join(this.folder, `${String(number).padStart(6, '0')}.log`);
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
}

async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}
