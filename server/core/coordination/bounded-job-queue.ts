import type { JobQueue, JobQueueFactory } from './job-queue.js';

/**
 * An in-memory queue that runs at most `concurrency` jobs at a time, in arrival order. The
 * background workers (async turns, channel deliveries) keep their truth in storage and use
 * this only to pace the work; after a restart, recovery refills it.
 */
export class BoundedJobQueue<Job> implements JobQueue<Job> {
  private readonly queue: Job[] = [];
  private running = 0;
  private readonly idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(
    private readonly run: (job: Job) => Promise<void>,
    private readonly concurrency: number,
    /** Called when a job has ended, however it ended. */
    private readonly onSettled?: (job: Job) => void,
  ) {}

  push(job: Job): void {
    if (this.stopped) return;
    this.queue.push(job);
    this.pump();
  }

  /** Resolves when nothing is queued or running (tests, shutdown). */
  idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Takes no new jobs, drops the queued ones, and waits for the running ones. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.length = 0;
    await this.idle();
  }

  private pump(): void {
    while (this.running < this.concurrency && this.queue.length > 0) {
      const job = this.queue.shift()!;
      this.running += 1;
      void this.run(job)
        .catch(() => undefined)
        .finally(() => {
          this.onSettled?.(job);
          this.running -= 1;
          this.pump();
          if (this.running === 0 && this.queue.length === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
        });
    }
  }
}

/** Queues in this process's memory: the embedded default (the truth stays in storage; recovery refills them at boot). */
export const inMemoryJobQueues: JobQueueFactory = (run, concurrency) => new BoundedJobQueue((job) => run(job, { attempt: 1 }), concurrency);
