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

  /** The next read (`get` or `list`) of `partition` in `table` runs `between` after reading and before answering. */
  afterNextRead(table: string, partition: string, between: () => Promise<void>): void {
    this.pending = { table, partition, between };
  }

  table<T>(name: string): TableStore<T> {
    const inner = this.inner.table<T>(name);
    const table: TableStore<T> = {
      name: inner.name,
      get: async (partition, key) => {
        const row = await inner.get(partition, key);
        await this.between(name, partition);
        return row;
      },
      // A partition read whole (a conversation this process has not seen is loaded so) is a read too.
      list: async (partition) => {
        const rows = await inner.list(partition);
        await this.between(name, partition);
        return rows;
      },
      listPartitions: () => inner.listPartitions(),
      write: (partition, operations) => inner.write(partition, operations),
    };
    if (inner.readAndWrite) table.readAndWrite = inner.readAndWrite.bind(inner);
    return table;
  }

  private async between(table: string, partition: string): Promise<void> {
    const pending = this.pending;
    if (pending && pending.table === table && pending.partition === partition) {
      this.pending = undefined;
      await pending.between();
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
