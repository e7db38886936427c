import { inMemoryJobQueues } from './bounded-job-queue.js';
import type { JobQueueFactory } from './job-queue.js';
import { type Budgets, memoryBudgets } from '../limits/budgets.js';
import type { ConversationLocks } from './conversation-locks.js';
import { KeyedMutex } from './keyed-mutex.js';
import { InMemoryRunningTurns, type RunningTurns } from './running-turns.js';

/**
 * How the work of one service is coordinated: in this process's memory when one process owns
 * the storage (lowdb), or through the shared database when several replicas serve together
 * (PostgreSQL; `coordination/postgres/`). The core asks for it once, in `createHarnessCore`.
 */
export interface Coordination {
  /** `memory`: one process; `shared`: every replica on the same database takes part. */
  kind: 'memory' | 'shared';
  /** The queues of the background workers (async requests, continuations, channel deliveries). */
  jobQueues: JobQueueFactory;
  /** The per-conversation turn lock. */
  conversationLocks: ConversationLocks;
  /** The per-account limits: per-minute budgets and concurrent-turn slots, counted once for the whole service. */
  budgets: Budgets;
  /** The turns running now, so that a cancel request received by any replica stops the turn it names. */
  runningTurns: RunningTurns;
  /**
   * How often the cron scheduler re-reads the jobs and unfinished runs from storage, to learn
   * of jobs written and runs ended through other replicas. Undefined: never (one process hears
   * of every change in memory).
   */
  cronResyncIntervalMs?: number;
  /** The core starts (every delivery registered): shared queues begin to claim jobs. */
  start(): Promise<void>;
  /** Stop heartbeats and polling, release what this replica holds; after the workers stopped. */
  close(): Promise<void>;
}

/** One process: today's in-memory queues, mutex and budgets, nothing to poll (the embedded default). */
export function inMemoryCoordination(): Coordination {
  return {
    kind: 'memory',
    jobQueues: inMemoryJobQueues,
    conversationLocks: new KeyedMutex(),
    budgets: memoryBudgets,
    runningTurns: new InMemoryRunningTurns(),
    start: async () => undefined,
    close: async () => undefined,
  };
}
