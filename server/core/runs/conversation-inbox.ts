import { randomUUID } from 'node:crypto';
import type { UserModelMessage } from 'ai';
import { conversationLockKey } from '../coordination/conversation-locks.js';
import { readAndWrite } from '../storage/read-and-write.js';
import type { ConversationAddress } from '../turns/busy-gate.js';
import type { TableStore } from '../storage/table-store.js';


/**
 * A user message that met a running turn and waits in its conversation's inbox: a `collect`
 * message until the next turn takes every one of them, a `steer` message until the running
 * turn takes it at a step boundary (or, when it had none left, its own turn does).
 */
export interface InboxEntry {
  entryId: string;
  mode: 'collect' | 'steer';
  /** The event id of the request that brought the message. */
  eventId: string;
  message: UserModelMessage;
  createdAt: string;
}

/** One partition per conversation, keyed as the conversation's lock is. */
function partitionOf(address: ConversationAddress): string {
  return conversationLockKey(address.accountId, address.agentId, address.conversationKey);
}

/** Entry keys sort in arrival order: the time, then a counter within the millisecond, then a random tail. */
let lastMillisecond = 0;
let sameMillisecond = 0;
function entryKey(): string {
  const now = Date.now();
  sameMillisecond = now === lastMillisecond ? sameMillisecond + 1 : 0;
  lastMillisecond = now;
  return `${now.toString(36).padStart(10, '0')}.${sameMillisecond.toString(36).padStart(4, '0')}.${randomUUID()}`;
}

const byArrival = (left: { key: string }, right: { key: string }) => (left.key < right.key ? -1 : left.key > right.key ? 1 : 0);

/**
 * The per-conversation inbox (`tables.conversationInbox`, one partition per conversation),
 * shared by every replica: adding and taking are each one atomic step on the partition, so a
 * message is taken by exactly one turn.
 */
export class ConversationInbox {
  constructor(private readonly table: TableStore<InboxEntry>) {}

  /**
   * Puts a message in the inbox. `firstEventId`: the event id of the earliest entry of its mode
   * waiting (its own when none was), so for `collect` the request that runs the next turn.
   */
  add(address: ConversationAddress, entry: Omit<InboxEntry, 'entryId'>): Promise<{ entryId: string; firstEventId: string }> {
    const entryId = entryKey();
    return readAndWrite(this.table, partitionOf(address), undefined, (rows) => {
      const earlier = rows.filter((row) => row.value.mode === entry.mode).sort(byArrival)[0];
      return {
        operations: [{ type: 'put', key: entryId, value: { ...entry, entryId }, expectedVersion: null }],
        result: { entryId, firstEventId: earlier?.value.eventId ?? entry.eventId },
      };
    });
  }

  /** Whether an entry `wanted` selects is waiting, without taking it. */
  async holds(address: ConversationAddress, wanted: (entry: InboxEntry) => boolean): Promise<boolean> {
    return (await this.table.list(partitionOf(address))).some((row) => wanted(row.value));
  }

  /** Takes (removes and returns, in arrival order) the entries `wanted` selects. */
  take(address: ConversationAddress, wanted: (entry: InboxEntry) => boolean): Promise<InboxEntry[]> {
    return readAndWrite(this.table, partitionOf(address), undefined, (rows) => {
      const taken = rows.filter((row) => wanted(row.value)).sort(byArrival);
      return { operations: taken.map((row) => ({ type: 'delete' as const, key: row.key, expectedVersion: row.version })), result: taken.map((row) => row.value) };
    });
  }

}
