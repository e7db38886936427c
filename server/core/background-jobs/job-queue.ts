/**
 * Where jobs wait until a worker runs them. Today an in-memory queue per worker (the truth
 * stays in storage, and recovery refills the queue at boot); a durable queue shared by
 * replicas (PostgreSQL `SKIP LOCKED`, JetStream) can implement the same three methods.
 */
export interface JobQueue<Job> {
  /** Queue a job; it runs once, at most `concurrency` at a time on this consumer. */
  push(job: Job): void;
  /** Resolves when nothing is queued or running (tests, shutdown). */
  idle(): Promise<void>;
  /** Take no new jobs and wait for the running ones. */
  stop(): Promise<void>;
}

/** Makes the queue a worker consumes: `run` is called once per job. */
export type JobQueueFactory = <Job>(run: (job: Job) => Promise<void>, concurrency: number) => JobQueue<Job>;
