import type { DeliveryRef } from './channel-deliveries-repository.js';

/**
 * Run the turn of a channel delivery that is still `accepted`, and post its reply. Named by
 * ids only, as every queued job: its truth is the delivery row, re-read when it runs.
 */
export interface ChannelDeliveryJob {
  kind: 'channel-delivery';
  ref: DeliveryRef;
}

/** The job's identity on a shared queue: the same delivery pushed again while it waits or runs stays one job. */
export function channelDeliveryJobKey(job: ChannelDeliveryJob): string {
  return `channel-delivery:${JSON.stringify([job.ref.accountId, job.ref.agentId, job.ref.provider, job.ref.deliveryId])}`;
}
