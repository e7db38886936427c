import { ConditionFailedError, type TableStore } from '../storage/table-store.js';
import type { AsyncRequestRecord } from './async-request.js';

const requestKey = 'event';

/**
 * Storage of the status rows, one partition per request. Every write is conditional; only
 * `AsyncRequestTransitions` writes, so the statuses a row can take are decided in one place.
 */
export class AsyncRequestsRepository {
  constructor(private readonly table: TableStore<AsyncRequestRecord>) {}

  async get(eventId: string): Promise<AsyncRequestRecord | undefined> {
    return (await this.table.get(eventId, requestKey))?.value;
  }

  /** Creates the row; throws `ConditionFailedError` when one with that id exists. */
  async create(request: AsyncRequestRecord): Promise<void> {
    await this.table.write(request.eventId, [{ type: 'put', key: requestKey, value: request, expectedVersion: null }]);
  }

  /**
   * Compare-and-set: `change` returns the new row, or undefined to leave it. Returns the row
   * as written, as found when left, or undefined when there is no row.
   */
  async change(eventId: string, change: (current: AsyncRequestRecord) => AsyncRequestRecord | undefined): Promise<{ row: AsyncRequestRecord; changed: boolean } | undefined> {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const current = await this.table.get(eventId, requestKey);
      if (!current) return undefined;
      const next = change(current.value);
      if (!next) return { row: current.value, changed: false };
      try {
        await this.table.write(eventId, [{ type: 'put', key: requestKey, value: next, expectedVersion: current.version }]);
        return { row: next, changed: true };
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
      }
    }
    throw new Error(`Async request ${eventId} kept changing under 20 attempts to update it.`);
  }

  async all(): Promise<AsyncRequestRecord[]> {
    const requests: AsyncRequestRecord[] = [];
    for (const partition of await this.table.listPartitions()) {
      const request = await this.get(partition);
      if (request) requests.push(request);
    }
    return requests;
  }
}
