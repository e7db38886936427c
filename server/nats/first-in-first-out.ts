/**
 * A queue with O(1) `shift`: an array with a moving head, compacted now and then.
 * `Array.prototype.shift` moves every element, which made a queue of 20,000 chunks
 * quadratic.
 */
export class FirstInFirstOut<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  first(): T | undefined {
    return this.items[this.head];
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head]!;
    this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Removes and returns the `count` oldest items. */
  dropOldest(count: number): T[] {
    const dropped = this.items.slice(this.head, this.head + count);
    this.head += dropped.length;
    return dropped;
  }

  /** Removes and returns every item, oldest first. */
  takeAll(): T[] {
    const all = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return all;
  }

  /** Puts items back in front, in their order. */
  unshiftAll(items: T[]): void {
    this.items = [...items, ...this.items.slice(this.head)];
    this.head = 0;
  }

  values(): T[] {
    return this.items.slice(this.head);
  }
}
