import type { EventsRepository } from '../events/events-repository.js';
import type { AsyncWorker } from '../events/async-worker.js';
import type { Logger } from '../logger.js';
import type { AsyncToolResultsRepository } from './async-tool-results-repository.js';
import type { AsyncSettlement } from './async-settlement.js';
import type { ContinuationDispatcher } from './continuation-dispatcher.js';

export interface RecoveryReport {
  sameInvocationFailed: number;
  continuationsResumed: number;
  eventsRequeued: number;
  eventsFailed: number;
}

/**
 * On boot, nothing is left stuck: same-invocation rows whose process died end `failed`
 * ("service restarted"); continuations that were claimed but not finished, or groups that are
 * sealed and settled but unclaimed, are handed to the dispatcher; queued events go back on the
 * worker; events that were mid-turn end `failed` with the reason.
 */
export async function recoverAsyncWork(dependencies: {
  repository: AsyncToolResultsRepository;
  settlement: AsyncSettlement;
  dispatcher: ContinuationDispatcher;
  events: EventsRepository;
  worker: AsyncWorker;
  logger: Logger;
}): Promise<RecoveryReport> {
  const report: RecoveryReport = { sameInvocationFailed: 0, continuationsResumed: 0, eventsRequeued: 0, eventsFailed: 0 };
  for (const groupId of await dependencies.repository.groupIds()) {
    const snapshot = await dependencies.repository.snapshot(groupId);
    for (const row of snapshot.results) {
      if (row.value.execution === 'same-invocation' && row.value.status === 'processing') {
        await dependencies.settlement.settle(row.key, { status: 'failed', error: 'service restarted' }, 'in-process').catch(() => undefined);
        report.sameInvocationFailed += 1;
      }
    }
    const group = snapshot.group?.value;
    if (!group) continue;
    if (group.continuation?.state === 'claimed') {
      dependencies.dispatcher.dispatch(group);
      report.continuationsResumed += 1;
    } else if (!group.continuation && group.sealed) {
      const claimed = await dependencies.settlement.claimIfReady(groupId);
      if (claimed) {
        dependencies.dispatcher.dispatch(claimed);
        report.continuationsResumed += 1;
      }
    }
  }
  for (const event of await dependencies.events.all()) {
    if (event.status === 'queued') {
      dependencies.worker.enqueueEvent(event.eventId);
      report.eventsRequeued += 1;
    } else if (event.status === 'processing') {
      await dependencies.events.update(event.eventId, (current) =>
        current.status === 'processing' ? { ...current, status: 'failed', error: 'service restarted while this turn was running', updatedAt: new Date().toISOString() } : undefined,
      );
      report.eventsFailed += 1;
    }
  }
  if (Object.values(report).some((count) => count > 0)) dependencies.logger.info({ event: 'recovery', ...report }, 'recovered async work');
  return report;
}
