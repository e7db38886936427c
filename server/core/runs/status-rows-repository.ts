import { modifyRows } from '../storage/read-and-write.js';
import type { TableStore, WriteDecision } from '../storage/table-store.js';
import type { AsyncRequestRecord } from './status-row.js';

const requestKey = 'event';
/** Rounds of a compare-and-set against concurrent writers of the same row. */
const changeAttempts = 20;

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
    return modifyRows(this.table, eventId, [requestKey], ([current]): WriteDecision<AsyncRequestRecord, { row: AsyncRequestRecord; changed: boolean } | undefined> => {
      if (!current) return { operations: [], result: undefined };
      const next = change(current.value);
      if (!next) return { operations: [], result: { row: current.value, changed: false } };
      return { operations: [{ type: 'put', key: requestKey, value: next, expectedVersion: current.version }], result: { row: next, changed: true } };
    }, changeAttempts);
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
