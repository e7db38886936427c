/**
 * Where jobs wait until a worker runs them: an in-memory queue per worker on the embedded
 * storage (the truth stays in storage, and recovery refills the queue at boot), or a durable
 * queue shared by replicas (`coordination/postgres/postgres-job-queue.ts`). Delivery is at
 * least once on a shared queue, so every handler must be idempotent: it re-reads the state
 * the job names and does nothing when that work is already done.
 */
export interface JobQueue<Job> {
  /** True when the queue keeps one job per key itself (a shared queue, whose jobs may run on another replica). */
  readonly deduplicates?: boolean;
  /** Queue a job; it runs at most `concurrency` at a time on this consumer. */
  push(job: Job): void;
  /** Resolves when nothing is queued or running (tests, shutdown). */
  idle(): Promise<void>;
  /** Take no new jobs and wait for the running ones. */
  stop(): Promise<void>;
}

/** What a shared queue needs to know about a worker's jobs. */
export interface JobQueueSpec<Job> {
  /** The queue's name, the same on every replica (`background`, `channel-deliveries`). */
  name: string;
  /** The job's identity: a job pushed again while one with its key waits or runs is the same job. */
  keyOf(job: Job): string;
}

/** How a job reached its handler. */
export interface JobDelivery {
  /** 1 the first time; more when a replica that held the job died (or stalled) before finishing it. */
  attempt: number;
}

/** Makes the queue a worker consumes: `run` is called once per delivery of a job. */
export type JobQueueFactory = <Job>(run: (job: Job, delivery: JobDelivery) => Promise<void>, concurrency: number, spec: JobQueueSpec<Job>) => JobQueue<Job>;
