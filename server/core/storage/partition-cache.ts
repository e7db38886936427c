import type { Partition } from './partition.js';

/**
 * The partitions kept in memory, within a byte budget (estimated from their serialized
 * length). Only clean partitions (nothing staged, their file up to date) may be dropped,
 * least recently used first; a dropped partition is read from its file again when needed.
 * Dirty ones count against the budget but stay until a checkpoint has written them.
 *
 * Dropping runs at the end of the event-loop turn, not inside the call that went over the
 * budget: code that has just opened a partition uses it before then.
 */
export class PartitionCache {
  private totalBytes = 0;
  /** Every partition held, with the size it was last counted at. */
  private readonly held = new Map<Partition<unknown>, number>();
  /** Clean partitions, least recently used first (a Set keeps insertion order). */
  private readonly evictable = new Set<Partition<unknown>>();
  private trimScheduled = false;

  constructor(
    private readonly budgetBytes: number,
    private readonly drop: (partition: Partition<unknown>) => void,
  ) {}

  /** Bytes of every partition held, clean or not. */
  get bytes(): number {
    return this.totalBytes;
  }

  /** How many partitions are held. */
  get size(): number {
    return this.held.size;
  }

  /** A partition was used: it becomes the most recently used. */
  touch(partition: Partition<unknown>): void {
    if (!this.evictable.delete(partition)) return;
    this.evictable.add(partition);
  }

  /** A partition was loaded or created, or its size or cleanliness changed. */
  update(partition: Partition<unknown>): void {
    if (partition.evicted) return;
    this.totalBytes += partition.bytes - (this.held.get(partition) ?? 0);
    this.held.set(partition, partition.bytes);
    this.evictable.delete(partition);
    if (partition.clean) this.evictable.add(partition);
    if (this.totalBytes > this.budgetBytes && !this.trimScheduled) {
      this.trimScheduled = true;
      setImmediate(() => this.trim());
    }
  }

  private trim(): void {
    this.trimScheduled = false;
    for (const partition of this.evictable) {
      if (this.totalBytes <= this.budgetBytes) break;
      this.evictable.delete(partition);
      if (!partition.clean) continue;
      this.totalBytes -= this.held.get(partition) ?? 0;
      this.held.delete(partition);
      partition.evicted = true;
      this.drop(partition);
    }
  }
}
