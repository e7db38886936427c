import type { CronJob, CronRun } from '../../client/index.js';
import { formatFields, formatTable } from '../output.js';
import { formatInZone } from './zoned-time.js';

/** A cron job and a run as the account service returns them: the API contract's views. */
export type { CronJob, CronRun } from '../../client/index.js';

/** The jobs table: the next run in the job's zone and in the user's. */
export function cronJobsTable(jobs: readonly CronJob[], localZone: string): string {
  const rows = jobs.map((job) => [
    job.cronJobId,
    job.name,
    job.agentId,
    job.scheduleExpression,
    job.status,
    formatInZone(job.nextRunAt, job.timezone),
    formatInZone(job.nextRunAt, localZone),
    job.lastRunStatus ?? '-',
  ]);
  return formatTable(['ID', 'NAME', 'AGENT', 'SCHEDULE', 'STATUS', 'NEXT (JOB ZONE)', 'NEXT (LOCAL)', 'LAST'], rows);
}

export function cronJobFields(job: CronJob, localZone: string): string {
  return formatFields([
    ['id', job.cronJobId],
    ['name', job.name],
    ['agent', job.agentId],
    ['conversation', job.conversationKey],
    ['schedule', job.scheduleExpression],
    ['zone', job.timezone],
    ['status', job.status],
    ['next run', formatInZone(job.nextRunAt, job.timezone)],
    ['next (local)', formatInZone(job.nextRunAt, localZone)],
    ['last run', job.lastRunAt ? `${formatInZone(job.lastRunAt, localZone)} (${job.lastRunStatus ?? '-'})` : '-'],
    ['prompt', job.prompt],
  ]);
}

function note(run: CronRun): string {
  const notes: string[] = [];
  if (run.catchUp) notes.push(`catch-up for ${run.catchUp.missedSlots} missed ${run.catchUp.missedSlots === 1 ? 'slot' : 'slots'}`);
  if (run.error) notes.push(run.error);
  if (run.deniedTools) notes.push(`not run, needs an approval: ${run.deniedTools.join(', ')}`);
  return notes.join('; ') || '-';
}

/** Runs, newest first, in the user's zone. */
export function cronRunsTable(runs: readonly CronRun[], localZone: string): string {
  const rows = runs.map((run) => [formatInZone(run.scheduledFor, localZone), formatInZone(run.startedAt, localZone), formatInZone(run.finishedAt, localZone), run.status, run.eventId, note(run)]);
  return formatTable(['SCHEDULED', 'STARTED', 'FINISHED', 'STATUS', 'EVENT', 'NOTE'], rows);
}
