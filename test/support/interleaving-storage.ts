import type { Storage, TableStore } from '../../server/core/storage/table-store.js';

interface PendingStep {
  table: string;
  partition: string;
  between: () => Promise<void>;
}

/**
 * Real storage whose next read of one partition can be held while something else happens:
 * what another worker or replica does between a reader's read and its write, made to happen
 * exactly there. The read returns what it read before `between` ran (the reader's view is
 * stale, as in the race), and every other call goes straight through.
 */
export class InterleavingStorage implements Storage {
  private pending: PendingStep | undefined;

  constructor(private readonly inner: Storage) {}

  /** The next `get` of `partition` in `table` runs `between` after reading and before answering. */
  afterNextRead(table: string, partition: string, between: () => Promise<void>): void {
    this.pending = { table, partition, between };
  }

  table<T>(name: string): TableStore<T> {
    const inner = this.inner.table<T>(name);
    const table: TableStore<T> = {
      name: inner.name,
      get: async (partition, key) => {
        const row = await inner.get(partition, key);
        const pending = this.pending;
        if (pending && pending.table === name && pending.partition === partition) {
          this.pending = undefined;
          await pending.between();
        }
        return row;
      },
      list: (partition) => inner.list(partition),
      listPartitions: () => inner.listPartitions(),
      write: (partition, operations) => inner.write(partition, operations),
    };
    if (inner.readAndWrite) table.readAndWrite = inner.readAndWrite.bind(inner);
    return table;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
