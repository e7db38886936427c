/** A job waiting for its next slot. */
export interface DueEntry {
  dueAt: number;
  accountId: string;
  cronJobId: string;
}

/**
 * The scheduler's agenda: a binary min-heap on `dueAt`, so one timer serves every job and
 * 10,000 jobs cost O(log n) per change. A job has at most one live entry: rescheduling
 * replaces it in the index and leaves the old heap entry to be skipped (lazy deletion),
 * with a rebuild when skipped entries pile up.
 */
export class DueQueue {
  private heap: DueEntry[] = [];
  private readonly live = new Map<string, DueEntry>();

  get size(): number {
    return this.live.size;
  }

  has(cronJobId: string): boolean {
    return this.live.has(cronJobId);
  }

  /** Schedule (or reschedule) a job. */
  set(entry: DueEntry): void {
    this.live.set(entry.cronJobId, entry);
    this.push(entry);
    if (this.heap.length > 2 * this.live.size + 1024) this.rebuild();
  }

  delete(cronJobId: string): void {
    this.live.delete(cronJobId);
  }

  /** The earliest live entry, without removing it. */
  peek(): DueEntry | undefined {
    this.dropStale();
    return this.heap[0];
  }

  /** Removes and returns every live entry due at or before `now`, earliest first. */
  takeDue(now: number): DueEntry[] {
    const due: DueEntry[] = [];
    for (let top = this.peek(); top && top.dueAt <= now; top = this.peek()) {
      this.pop();
      this.live.delete(top.cronJobId);
      due.push(top);
    }
    return due;
  }

  clear(): void {
    this.heap = [];
    this.live.clear();
  }

  private isLive(entry: DueEntry): boolean {
    return this.live.get(entry.cronJobId) === entry;
  }

  private dropStale(): void {
    while (this.heap.length > 0 && !this.isLive(this.heap[0]!)) this.pop();
  }

  private rebuild(): void {
    this.heap = [];
    for (const entry of this.live.values()) this.push(entry);
  }

  private push(entry: DueEntry): void {
    const heap = this.heap;
    heap.push(entry);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (heap[parent]!.dueAt <= entry.dueAt) break;
      heap[index] = heap[parent]!;
      index = parent;
    }
    heap[index] = entry;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (heap.length === 0 || !last) return;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.dueAt < heap[left]!.dueAt ? right : left;
      if (heap[child]!.dueAt >= last.dueAt) break;
      heap[index] = heap[child]!;
      index = child;
    }
    heap[index] = last;
  }
}
