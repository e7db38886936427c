import { spanAttribute, spanName } from '../telemetry/span-attributes.js';
import { inSpan } from '../telemetry/spans.js';
import type { CronJobRecord, CronRun } from './cron-job.js';

/**
 * A cron fire: the job, the slot it fired for, and the run's event id. A trace of its own (a
 * timer fired it, not a request); the run it submits is queued with this span's context, so
 * the run's turn on the background worker joins the same trace.
 */
export function traceCronFire(job: CronJobRecord, run: CronRun, launch: () => Promise<void>): Promise<void> {
  return inSpan(
    spanName.cronFire,
    () => ({
      [spanAttribute.accountId]: job.accountId,
      [spanAttribute.agentId]: job.agentId,
      [spanAttribute.cronJobId]: job.cronJobId,
      [spanAttribute.cronSlot]: run.scheduledFor,
      [spanAttribute.eventId]: run.eventId,
      ...(run.catchUp ? { [spanAttribute.cronMissedSlots]: run.catchUp.missedSlots } : {}),
    }),
    launch,
    { root: true },
  );
}
