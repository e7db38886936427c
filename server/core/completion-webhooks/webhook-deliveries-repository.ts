import { modifyRows } from '../storage/read-and-write.js';
import { ConditionFailedError, type TableStore, type WriteDecision, type WriteOperation } from '../storage/table-store.js';
import type { WebhookAttempt, WebhookDelivery, WebhookDeliveryRef } from './webhook-delivery.js';

/** Finished deliveries kept per agent: the oldest beyond this are removed when a new one is recorded. */
export const deliveriesKeptPerAgent = 200;

/** Rounds of `finishAttempt` against concurrent writers of the same delivery. */
const finishAttempts = 10;

/** One partition per agent, so its deliveries are listed with one read; a delivery is one row keyed by its id. */
function partitionOf(accountId: string, agentId: string): string {
  return JSON.stringify([accountId, agentId]);
}

const newestFirst = (left: WebhookDelivery, right: WebhookDelivery) => right.createdAt.localeCompare(left.createdAt) || right.deliveryId.localeCompare(left.deliveryId);

/** How an attempt claim went. */
export type AttemptClaim =
  | { kind: 'claimed'; delivery: WebhookDelivery; attempt: number }
  /** Pending, but not to be attempted before `dueAt` (its retry time, or the end of another worker's claim). */
  | { kind: 'not-due'; dueAt: string }
  | { kind: 'nothing-to-do' };

/** The webhook deliveries table (`tables.webhookDeliveries`). Every write is conditional on the row's version. */
export class WebhookDeliveriesRepository {
  constructor(private readonly table: TableStore<WebhookDelivery>) {}

  /**
   * Records a new delivery; false (nothing written) when it exists already: another writer
   * learned of the same finish first. Finished deliveries beyond the newest
   * `deliveriesKeptPerAgent` are removed in the same batch.
   */
  async create(delivery: WebhookDelivery): Promise<boolean> {
    const partition = partitionOf(delivery.accountId, delivery.agentId);
    const rows = await this.table.list(partition);
    if (rows.some((row) => row.key === delivery.deliveryId)) return false;
    const finished = rows.filter((row) => row.value.state !== 'pending').sort((left, right) => newestFirst(left.value, right.value));
    const removable = finished.slice(Math.max(0, deliveriesKeptPerAgent - 1 - (rows.length - finished.length)));
    const operations: WriteOperation<WebhookDelivery>[] = [
      { type: 'put', key: delivery.deliveryId, value: delivery, expectedVersion: null },
      ...removable.map((row) => ({ type: 'delete' as const, key: row.key, expectedVersion: row.version })),
    ];
    try {
      await this.table.write(partition, operations);
      return true;
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      // Either the delivery was created meanwhile, or a row to remove changed: only the first is a refusal.
      if (await this.get(delivery)) return false;
      await this.table.write(partition, [operations[0]!]);
      return true;
    }
  }

  async get(ref: WebhookDeliveryRef): Promise<WebhookDelivery | undefined> {
    return (await this.table.get(partitionOf(ref.accountId, ref.agentId), ref.deliveryId))?.value;
  }

  /** An agent's deliveries, newest first. */
  async listForAgent(accountId: string, agentId: string, limit: number): Promise<WebhookDelivery[]> {
    const rows = await this.table.list(partitionOf(accountId, agentId));
    return rows.map((row) => row.value).sort(newestFirst).slice(0, limit);
  }

  /** Every delivery still `pending` (boot recovery, the replicas' sweep). */
  async pending(): Promise<WebhookDelivery[]> {
    const found: WebhookDelivery[] = [];
    for (const partition of await this.table.listPartitions()) {
      for (const row of await this.table.list(partition)) if (row.value.state === 'pending') found.push(row.value);
    }
    return found;
  }

  /** An account's deliveries still `pending`, the longest waiting first (its share of the queue had room again). */
  async pendingForAccount(accountId: string): Promise<WebhookDelivery[]> {
    const prefix = `${JSON.stringify([accountId]).slice(0, -1)},`;
    const found: WebhookDelivery[] = [];
    for (const partition of await this.table.listPartitions()) {
      if (!partition.startsWith(prefix)) continue;
      for (const row of await this.table.list(partition)) if (row.value.state === 'pending') found.push(row.value);
    }
    const dueAt = (delivery: WebhookDelivery) => delivery.nextAttemptAt ?? delivery.createdAt;
    return found.sort((left, right) => dueAt(left).localeCompare(dueAt(right)));
  }

  /**
   * Takes the next attempt of a pending, due delivery that no live worker is attempting: a
   * conditional write, so of two workers racing for it (a retry timer here, a sweep on another
   * replica) one gets it. The claim lasts until `until`, past the attempt's timeout.
   */
  async claimAttempt(ref: WebhookDeliveryRef, now: Date, until: Date): Promise<AttemptClaim> {
    const partition = partitionOf(ref.accountId, ref.agentId);
    const current = await this.table.get(partition, ref.deliveryId);
    const delivery = current?.value;
    if (!current || !delivery || delivery.state !== 'pending') return { kind: 'nothing-to-do' };
    // Another worker is attempting it: look again when its claim runs out (in case it died).
    if (delivery.claim && Date.parse(delivery.claim.until) > now.getTime()) return { kind: 'not-due', dueAt: delivery.claim.until };
    if (delivery.nextAttemptAt && Date.parse(delivery.nextAttemptAt) > now.getTime()) return { kind: 'not-due', dueAt: delivery.nextAttemptAt };
    const attempt = delivery.attempts.length + 1;
    const claimed: WebhookDelivery = { ...delivery, claim: { attempt, until: until.toISOString() }, updatedAt: now.toISOString() };
    try {
      await this.table.write(partition, [{ type: 'put', key: ref.deliveryId, value: claimed, expectedVersion: current.version }]);
      return { kind: 'claimed', delivery: claimed, attempt };
    } catch (error) {
      if (error instanceof ConditionFailedError) return { kind: 'nothing-to-do' };
      throw error;
    }
  }

  /**
   * Ends the claimed attempt: records it (when one was made) and what follows, another attempt
   * at `nextAttemptAt` or the end of the delivery. Only the claim's holder writes; false when
   * the claim was lost (it ran out and another worker took the delivery). A row that keeps
   * changing under every attempt throws (the job logs it; the delivery stays pending for a sweep).
   */
  async finishAttempt(
    ref: WebhookDeliveryRef,
    attempt: number,
    outcome: { record?: WebhookAttempt; state: 'pending'; nextAttemptAt: string } | { record?: WebhookAttempt; state: 'delivered' | 'failed'; error?: string },
    now: Date,
  ): Promise<boolean> {
    return modifyRows(
      this.table,
      partitionOf(ref.accountId, ref.agentId),
      [ref.deliveryId],
      ([current]): WriteDecision<WebhookDelivery, boolean> => {
        if (!current || current.value.state !== 'pending' || current.value.claim?.attempt !== attempt) return { operations: [], result: false };
        const { claim: _claim, nextAttemptAt: _next, ...rest } = current.value;
        const next: WebhookDelivery = {
          ...rest,
          state: outcome.state,
          attempts: outcome.record ? [...rest.attempts, outcome.record] : rest.attempts,
          ...(outcome.state === 'pending' ? { nextAttemptAt: outcome.nextAttemptAt } : {}),
          ...(outcome.state !== 'pending' && outcome.error ? { error: outcome.error } : {}),
          updatedAt: now.toISOString(),
        };
        return { operations: [{ type: 'put', key: ref.deliveryId, value: next, expectedVersion: current.version }], result: true };
      },
      finishAttempts,
    );
  }
}
