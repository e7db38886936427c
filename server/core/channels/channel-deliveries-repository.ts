import { modifyRows } from '../storage/read-and-write.js';
import { ConditionFailedError, type TableStore } from '../storage/table-store.js';
import type { ReplyTarget } from './channel-adapter.js';

/** `accepted` once acknowledged; `done` or `failed` once processed (reply sent or apology tried). */
export type ChannelDeliveryStatus = 'accepted' | 'done' | 'failed';

/**
 * One webhook delivery that carried a message. Stored before the webhook is acknowledged,
 * so a retry is recognised and an acknowledged message survives a restart.
 */
export interface ChannelDelivery {
  accountId: string;
  agentId: string;
  provider: string;
  /** The provider's delivery id: the dedupe key, since providers retry a webhook with the same id. */
  deliveryId: string;
  conversationId: string;
  text: string;
  sender: string;
  replyTarget: ReplyTarget;
  status: ChannelDeliveryStatus;
  acceptedAt: string;
  finishedAt?: string;
  /** Why processing failed (never a secret: the turn's error kind or a send status). */
  error?: string;
}

export interface DeliveryRef {
  accountId: string;
  agentId: string;
  provider: string;
  deliveryId: string;
}

const deliveryKey = 'delivery';
/** Rounds of `finish` against concurrent writers of the same delivery. */
const finishAttempts = 10;

/** One partition per delivery: a claim is a conditional create that touches nothing else. */
function partitionOf(ref: DeliveryRef): string {
  return JSON.stringify([ref.accountId, ref.agentId, ref.provider, ref.deliveryId]);
}

/** The channel deliveries table (`tables.channelDeliveries`). */
export class ChannelDeliveriesRepository {
  constructor(private readonly table: TableStore<ChannelDelivery>) {}

  /**
   * Records a new delivery as `accepted`; false when the same delivery was recorded before
   * (a provider's retry), in which case nothing is written.
   */
  async claim(delivery: ChannelDelivery): Promise<boolean> {
    try {
      await this.table.write(partitionOf(delivery), [{ type: 'put', key: deliveryKey, value: delivery, expectedVersion: null }]);
      return true;
    } catch (error) {
      if (error instanceof ConditionFailedError) return false;
      throw error;
    }
  }

  async get(ref: DeliveryRef): Promise<ChannelDelivery | undefined> {
    return (await this.table.get(partitionOf(ref), deliveryKey))?.value;
  }

  /**
   * Moves an `accepted` delivery to `done` or `failed`; a delivery already finished is left as
   * it is. A row that keeps changing under every attempt throws (the worker logs it and the
   * delivery stays `accepted` for the next boot), it is never dropped silently.
   */
  async finish(ref: DeliveryRef, outcome: { status: 'done' } | { status: 'failed'; error: string }, finishedAt: string): Promise<void> {
    await modifyRows(
      this.table,
      partitionOf(ref),
      [deliveryKey],
      ([current]) => ({
        operations: current?.value.status === 'accepted' ? [{ type: 'put', key: deliveryKey, value: { ...current.value, ...outcome, finishedAt }, expectedVersion: current.version }] : [],
        result: undefined,
      }),
      finishAttempts,
    );
  }

  /** Every stored delivery (boot recovery and pruning). */
  async all(): Promise<ChannelDelivery[]> {
    const deliveries: ChannelDelivery[] = [];
    for (const partition of await this.table.listPartitions()) {
      const row = await this.table.get(partition, deliveryKey);
      if (row) deliveries.push(row.value);
    }
    return deliveries;
  }

  /** Forgets a finished delivery (its retries can no longer arrive). */
  async remove(ref: DeliveryRef): Promise<void> {
    await this.table.write(partitionOf(ref), [{ type: 'delete', key: deliveryKey }]);
  }
}
