/**
 * What a background worker runs, named by ids only: a job says what to run, never holds the
 * state it runs on (that is re-read from storage), so it can wait on a durable queue shared
 * by several replicas as well as in memory.
 */
export type BackgroundJob = AsyncRequestJob | ContinuationJob;

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

/** A job's identity on a shared queue: pushing the same work again while it waits or runs keeps one job. */
export function backgroundJobKey(job: BackgroundJob): string {
  if (job.kind === 'async-request') return `async-request:${job.eventId}`;
  return `continuation:${job.groupId}`;
}
