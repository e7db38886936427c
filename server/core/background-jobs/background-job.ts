import type { DeliveryRef } from '../channels/channel-deliveries-repository.js';

/**
 * What a background worker runs, named by ids only: a job says what to run, never holds the
 * state it runs on (that is re-read from storage), so it can wait on a durable queue shared
 * by several replicas as well as in memory.
 */
export type BackgroundJob = AsyncRequestJob | ContinuationJob | ChannelDeliveryJob;

/** Run a stored `/async` request (or cron run) that is still `queued`. */
export interface AsyncRequestJob {
  kind: 'async-request';
  eventId: string;
}

/** Run the continuation of a dispatch group whose continuation was claimed. */
export interface ContinuationJob {
  kind: 'continuation';
  groupId: string;
}

/** Run the turn of a channel delivery that is still `accepted`, and post its reply. */
export interface ChannelDeliveryJob {
  kind: 'channel-delivery';
  ref: DeliveryRef;
}

/** A job's identity on a shared queue: pushing the same work again while it waits or runs keeps one job. */
export function backgroundJobKey(job: BackgroundJob): string {
  if (job.kind === 'async-request') return `async-request:${job.eventId}`;
  if (job.kind === 'continuation') return `continuation:${job.groupId}`;
  return `channel-delivery:${JSON.stringify([job.ref.accountId, job.ref.agentId, job.ref.provider, job.ref.deliveryId])}`;
}
