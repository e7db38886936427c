import { ConditionFailedError, type TableStore } from '../storage/table-store.js';
import type { EventRecord } from './event.js';

const eventKey = 'event';

/** Event status rows, one partition per event. */
export class EventsRepository {
  private readonly statusListeners = new Set<(event: EventRecord) => void>();

  constructor(private readonly table: TableStore<EventRecord>) {}

  /** Observe every status change written through `update` (cron runs learn their outcome so). Returns the unsubscribe function. */
  onStatusChange(listener: (event: EventRecord) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  async get(eventId: string): Promise<EventRecord | undefined> {
    return (await this.table.get(eventId, eventKey))?.value;
  }

  async create(event: EventRecord): Promise<void> {
    await this.table.write(event.eventId, [{ type: 'put', key: eventKey, value: event, expectedVersion: null }]);
  }

  /** Create the row if it is absent; an existing row is left as it is. */
  async ensure(event: EventRecord): Promise<void> {
    try {
      await this.create(event);
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
    }
  }

  /**
   * Change a row with compare-and-set; `change` returns the new row, or undefined to leave it.
   * Returns the row as written (or as found).
   */
  async update(eventId: string, change: (current: EventRecord) => EventRecord | undefined): Promise<EventRecord | undefined> {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const current = await this.table.get(eventId, eventKey);
      if (!current) return undefined;
      const next = change(current.value);
      if (!next) return current.value;
      try {
        await this.table.write(eventId, [{ type: 'put', key: eventKey, value: next, expectedVersion: current.version }]);
        if (next.status !== current.value.status) for (const listener of this.statusListeners) listener(next);
        return next;
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
      }
    }
    throw new Error(`Event ${eventId} kept changing under 20 attempts to update it.`);
  }

  async all(): Promise<EventRecord[]> {
    const events: EventRecord[] = [];
    for (const partition of await this.table.listPartitions()) {
      const event = await this.get(partition);
      if (event) events.push(event);
    }
    return events;
  }
}
