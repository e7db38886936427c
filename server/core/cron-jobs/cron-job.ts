/**
 * Cron jobs as stored and as shown. A job and its run history live in the account's
 * partition of the cron-jobs table, so claiming a slot (the job row) and recording its run
 * (the runs row) is one atomic, conditional batch.
 */
export type CronJobStatus = 'active' | 'paused' | 'completed';

/**
 * A run is `running` from the moment its slot is claimed (with its event id already chosen)
 * until its event ends. A start of the scheduler submits every `running` run again with that
 * event id: one that never got through starts then, one that did is found, not doubled.
 */
export type CronRunStatus = 'running' | 'completed' | 'failed';

/** The cron job as the API shows it. */
export interface CronJobView {
  cronJobId: string;
  name: string;
  agentId: string;
  conversationKey: string;
  prompt: string;
  scheduleExpression: string;
  timezone: string;
  status: CronJobStatus;
  /** The slot the scheduler fires next (ISO); null when paused, completed or nothing is left. */
  nextRunAt: string | null;
  /** When the newest run started. */
  lastRunAt: string | null;
  lastRunStatus: CronRunStatus | null;
  createdAt: string;
  updatedAt: string;
}

/** A cron job as stored: what the API shows, plus what the scheduler keeps. */
export interface CronJobRecord extends CronJobView {
  kind: 'job';
  accountId: string;
  /** Where `rate()` counts from: creation, resume, or a change of expression. */
  anchorAt: string;
  /** The newest slot a scheduler claimed; a slot at or before it never fires again. */
  lastFiredSlot: string | null;
}

export interface CronRun {
  runId: string;
  /** Chosen when the slot is claimed, before submitting, so a retry after a crash reuses it. */
  eventId: string;
  scheduledFor: string;
  startedAt: string;
  finishedAt: string | null;
  status: CronRunStatus;
  error?: string;
  /** Tools the run did not run because they need an approval, which a cron run cannot give. */
  deniedTools?: string[];
  /** Set on the one run that stands for slots missed while no scheduler ran. */
  catchUp?: { missedSlots: number; lastMissedSlot: string };
}

/** The bounded run history of one job, newest first. */
export interface CronRunsRecord {
  kind: 'runs';
  cronJobId: string;
  runs: CronRun[];
}

export type CronTableRow = CronJobRecord | CronRunsRecord;

/** Runs kept per job; older ones are dropped when a new one is recorded. */
export const runHistoryLimit = 100;

export const cronJobIdPattern = /^cron_[A-Za-z0-9-]{1,64}$/;

export function viewCronJob(job: CronJobRecord): CronJobView {
  return {
    cronJobId: job.cronJobId,
    name: job.name,
    agentId: job.agentId,
    conversationKey: job.conversationKey,
    prompt: job.prompt,
    scheduleExpression: job.scheduleExpression,
    timezone: job.timezone,
    status: job.status,
    nextRunAt: job.nextRunAt,
    lastRunAt: job.lastRunAt,
    lastRunStatus: job.lastRunStatus,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
  };
}
