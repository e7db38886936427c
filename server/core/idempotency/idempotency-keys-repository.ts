import { readAndWrite } from '../storage/read-and-write.js';
import type { TableStore, VersionedRow, WriteOperation } from '../storage/table-store.js';
import { type IdempotencyRecord, type IdempotencyRef, isLive } from './idempotency-record.js';

/** One partition per account (its keys are swept together); a row per route and key. */
function rowKey(ref: IdempotencyRef): string {
  return JSON.stringify([ref.route, ref.key]);
}

/** What a claim found. */
export type ClaimOutcome = { kind: 'claimed' } | { kind: 'found'; record: IdempotencyRecord };

/**
 * The idempotency keys table (`tables.idempotencyKeys`). Every write is conditional on what was
 * read, so two replicas claiming one key cannot both get it.
 */
export class IdempotencyKeysRepository {
  constructor(private readonly table: TableStore<IdempotencyRecord>) {}

  /**
   * Writes `claim` for the key unless a live row holds it (an answer, a stream, a claim not yet
   * run out): then that row is returned and nothing is written. An expired row is replaced.
   */
  async claim(ref: IdempotencyRef, claim: IdempotencyRecord, now: Date): Promise<ClaimOutcome> {
    const key = rowKey(ref);
    return readAndWrite<IdempotencyRecord, ClaimOutcome>(this.table, ref.accountId, [key], ([row]) => {
      if (row && isLive(row.value, now)) return { operations: [], result: { kind: 'found', record: row.value } };
      return { operations: [{ type: 'put', key, value: claim, expectedVersion: row ? row.version : null }], result: { kind: 'claimed' } };
    });
  }

  /** The key's row, live or not. */
  async find(ref: IdempotencyRef): Promise<IdempotencyRecord | undefined> {
    return (await this.table.get(ref.accountId, rowKey(ref)))?.value;
  }

  /**
   * Replaces the claim `claimId` with `next` (undefined: deletes it). False, and nothing
   * written, when the key no longer holds that claim (it ran out and another request took it).
   */
  async replaceClaim(ref: IdempotencyRef, claimId: string, next: IdempotencyRecord | undefined): Promise<boolean> {
    const key = rowKey(ref);
    return readAndWrite(this.table, ref.accountId, [key], ([row]) => {
      if (!row || row.value.state !== 'claimed' || row.value.claimId !== claimId) return { operations: [], result: false };
      const operation: WriteOperation<IdempotencyRecord> = next ? { type: 'put', key, value: next, expectedVersion: row.version } : { type: 'delete', key, expectedVersion: row.version };
      return { operations: [operation], result: true };
    });
  }

  /** Deletes every row that is no longer live; returns how many. */
  async deleteExpired(now: Date): Promise<number> {
    let deleted = 0;
    for (const partition of await this.table.listPartitions()) {
      deleted += await readAndWrite(this.table, partition, undefined, (rows: VersionedRow<IdempotencyRecord>[]) => {
        const expired = rows.filter((row) => !isLive(row.value, now));
        return { operations: expired.map((row) => ({ type: 'delete' as const, key: row.key, expectedVersion: row.version })), result: expired.length };
      });
    }
    return deleted;
  }
}
