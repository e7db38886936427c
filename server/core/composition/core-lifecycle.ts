import type { Coordination } from '../coordination/coordination.js';
import type { CronScheduler } from '../cron-jobs/index.js';
import type { IdempotentRequests } from '../idempotency/idempotent-requests.js';
import type { Logger } from '../logger.js';
import { recoverAsyncWork, type RecoveryReport } from '../runs/async-recovery.js';
import type { AccountsAndAgents } from './build-accounts-and-agents.js';
import type { Runs } from './build-runs.js';

/** The parts whose background work starts and stops with the service. */
export interface CoreParts {
  coordination: Coordination;
  shared: AccountsAndAgents;
  runs: Runs;
  cronScheduler: CronScheduler;
  idempotency: IdempotentRequests;
  logger: Logger;
}

/** Recover unfinished work from storage, then start the background parts; once the service is ready. */
export async function startCore({ coordination, runs, cronScheduler, idempotency, logger }: CoreParts): Promise<RecoveryReport> {
  await coordination.start();
  const report = await recoverAsyncWork({
    repository: runs.asyncRepository,
    completions: runs.asyncCompletions,
    requests: runs.requestsRepository,
    transitions: runs.transitions,
    enqueue: (job) => runs.runQueue.push(job),
    logger,
    shared: coordination.kind === 'shared',
  });
  await runs.channels.worker.recover();
  await runs.completionWebhooks.start();
  // After recovery: runs it put back on the queue are found by the scheduler, not resubmitted.
  await cronScheduler.start();
  idempotency.start();
  return report;
}

/** Take no new background work, wait for what runs, then close what the core opened. */
export async function stopCore({ coordination, shared, runs, cronScheduler, idempotency }: CoreParts): Promise<void> {
  await cronScheduler.stop();
  idempotency.stop();
  await Promise.all([runs.asyncWorker.stop(), runs.channels.worker.stop()]);
  // After the workers: their last transitions may still announce finishes.
  await runs.completionWebhooks.stop();
  await coordination.close();
  await shared.mcpConnections.close();
  await shared.mcpFetch.destroy();
  await shared.outbound.close();
}
