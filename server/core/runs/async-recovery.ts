import type { AsyncRequestTransitions } from './status-row-transitions.js';
import type { AsyncRequestsRepository } from './status-rows-repository.js';
import type { AsyncRequestJob } from './background-job.js';
import type { Logger } from '../logger.js';
import type { AsyncToolCompletions } from '../async-tools/async-tool-completions.js';
import type { AsyncToolResultsRepository } from '../async-tools/async-tool-results-repository.js';

export interface RecoveryReport {
  sameInvocationFailed: number;
  continuationsResumed: number;
  eventsRequeued: number;
  eventsFailed: number;
}

export interface RecoveryDependencies {
  repository: AsyncToolResultsRepository;
  completions: AsyncToolCompletions;
  requests: AsyncRequestsRepository;
  transitions: AsyncRequestTransitions;
  /** Where a request still `queued` goes to be run again. */
  enqueue: (job: AsyncRequestJob) => void;
  logger: Logger;
  /**
   * Replicas share the storage: rows `processing` may belong to a live replica, so they are
   * not failed here. A request `processing` keeps its job on the shared queue until it ends,
   * and a replica that died loses that job's lease: another takes the request over.
   */
  shared?: boolean;
}

/**
 * On boot, nothing is left stuck: same-invocation rows whose process died end `failed`
 * ("service restarted"); continuations that were claimed but not finished, or groups that are
 * sealed and settled but unclaimed, are dispatched; queued requests are queued again;
 * requests that were mid-turn end `failed` with the reason.
 */
export async function recoverAsyncWork(dependencies: RecoveryDependencies): Promise<RecoveryReport> {
  const report: RecoveryReport = { sameInvocationFailed: 0, continuationsResumed: 0, eventsRequeued: 0, eventsFailed: 0 };
  for (const groupId of await dependencies.repository.groupIds()) {
    const snapshot = await dependencies.repository.snapshot(groupId);
    for (const row of snapshot.results) {
      if (!dependencies.shared && row.value.execution === 'same-invocation' && row.value.status === 'processing') {
        await dependencies.completions.settleInProcess(row.key, { status: 'failed', error: 'service restarted' }).catch(() => undefined);
        report.sameInvocationFailed += 1;
      }
    }
    const group = snapshot.group?.value;
    if (group && (await dependencies.completions.resume(group))) report.continuationsResumed += 1;
  }
  for (const request of await dependencies.requests.all()) {
    if (request.status === 'queued') {
      dependencies.enqueue({ kind: 'async-request', eventId: request.eventId });
      report.eventsRequeued += 1;
    } else if (request.status === 'processing' && !dependencies.shared) {
      await dependencies.transitions.failInterrupted(request.eventId);
      report.eventsFailed += 1;
    }
  }
  if (Object.values(report).some((count) => count > 0)) dependencies.logger.info({ event: 'recovery', ...report }, 'recovered async work');
  return report;
}
