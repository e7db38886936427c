import { randomUUID } from 'node:crypto';
import { parseScheduleExpression, type Schedule } from '../schedule-expressions/index.js';
import type { AsyncRequestStatus } from '../runs/status-row.js';
import type { CronJobRecord, CronRun, CronRunStatus } from './cron-job.js';
import type { SlotClaim } from './cron-jobs-repository.js';
import { slotsThrough } from './slots-through.js';

/** An event status that ends a cron run, and how the run records it. */
export function finalRunStatus(status: AsyncRequestStatus, error: string | undefined): { status: CronRunStatus; error?: string } | undefined {
  if (status === 'completed') return { status: 'completed' };
  if (status === 'failed') return { status: 'failed', error: error ?? 'the run failed' };
  if (status === 'cancelled') return { status: 'failed', error: 'the run was cancelled' };
  // Approvals are denied on cron runs, so this means a turn that cannot go on without a person.
  if (status === 'awaiting_approval') return { status: 'failed', error: 'the run stopped for an approval, which a cron run cannot give' };
  return undefined;
}

/**
 * The claim of a job's due slot at `now`, or undefined when it is not due (anymore): the run it
 * starts (a catch-up when slots were missed, or the slot is older than the scheduler's start)
 * and the job as it is once the slot is claimed (its next slot; `completed` when none is left).
 */
export function dueSlotClaim(job: CronJobRecord, now: number, schedulerStartedAt: number, scheduleOf: (expression: string) => Schedule): Omit<SlotClaim, 'jobVersion'> | undefined {
  if (job.status !== 'active' || job.nextRunAt === null) return undefined;
  const slot = Date.parse(job.nextRunAt);
  // Moved later by a change since it was queued, or already claimed.
  if (slot > now || (job.lastFiredSlot !== null && slot <= Date.parse(job.lastFiredSlot))) return undefined;
  const { missedSlots, lastMissedSlot, next } = slotsThrough(scheduleOf(job.scheduleExpression), job.timezone, slot, now, new Date(job.anchorAt));
  const startedAt = new Date(now).toISOString();
  const catchUp = slot < schedulerStartedAt || missedSlots > 1;
  const run: CronRun = {
    runId: `run_${randomUUID()}`,
    eventId: `evt_${randomUUID()}`,
    scheduledFor: job.nextRunAt,
    startedAt,
    finishedAt: null,
    status: 'running',
    ...(catchUp ? { catchUp: { missedSlots, lastMissedSlot: new Date(lastMissedSlot).toISOString() } } : {}),
  };
  const claimed: CronJobRecord = {
    ...job,
    lastFiredSlot: new Date(lastMissedSlot).toISOString(),
    nextRunAt: next === null ? null : new Date(next).toISOString(),
    // An at() job (or a cron whose years are over) has nothing left once it fired.
    status: next === null ? 'completed' : 'active',
    lastRunAt: startedAt,
    lastRunStatus: 'running',
  };
  return { claimed, run };
}

/** Parsed schedule expressions, by expression (bounded: cleared past 10,000). */
export class ScheduleCache {
  private readonly schedules = new Map<string, Schedule>();

  get(expression: string): Schedule {
    let schedule = this.schedules.get(expression);
    if (!schedule) {
      schedule = parseScheduleExpression(expression);
      if (this.schedules.size > 10_000) this.schedules.clear();
      this.schedules.set(expression, schedule);
    }
    return schedule;
  }
}
