import { inMemoryJobQueues } from '../coordination/bounded-job-queue.js';
import type { JobDelivery, JobQueue, JobQueueFactory } from '../coordination/job-queue.js';
import { type AsyncRequestJob, backgroundJobKey, type ContinuationJob } from './background-job.js';

export type RunJob = AsyncRequestJob | ContinuationJob;

export interface RunQueueOptions {
  /** Where jobs wait: in memory (default) or the coordination's queue shared by replicas. */
  queues?: JobQueueFactory;
  /** Jobs run at once by this process's consumer (default 4). */
  concurrency?: number;
}

/**
 * The queue of runs that wait for the background worker: `/async` requests, cron runs and
 * continuations. Those who start runs push to it (the `/async` route, recovery, a claimed
 * continuation); the background worker consumes it. It exists before either, so neither needs
 * the other to be built: the turn that claims a continuation and the worker that runs it meet
 * here. Jobs pushed before the worker consumes are kept and handed over when it does.
 */
export class RunQueue {
  private queue: JobQueue<RunJob> | undefined;
  private readonly early: RunJob[] = [];

  constructor(private readonly options: RunQueueOptions = {}) {}

  push(job: RunJob): void {
    if (this.queue) this.queue.push(job);
    else this.early.push(job);
  }

  /** The background worker takes the queue's jobs: called once, as it is built. */
  consume(run: (job: RunJob, delivery: JobDelivery) => Promise<void>): void {
    if (this.queue) throw new Error('The run queue has a consumer already.');
    this.queue = (this.options.queues ?? inMemoryJobQueues)(run, this.options.concurrency ?? 4, { name: 'background', keyOf: backgroundJobKey });
    for (const job of this.early.splice(0)) this.queue.push(job);
  }

  /** Resolves when nothing waits or runs (tests, shutdown). */
  idle(): Promise<void> {
    return this.queue?.idle() ?? Promise.resolve();
  }

  /** Take no new jobs; wait for the running ones. */
  stop(): Promise<void> {
    return this.queue?.stop() ?? Promise.resolve();
  }
}
