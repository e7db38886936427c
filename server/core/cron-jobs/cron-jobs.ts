import { randomUUID } from 'node:crypto';
import type { Agents } from '../agents/agents.js';
import { firstFireTime, nextFireTime, type Schedule, validateForCreation } from '../schedule-expressions/index.js';
import { ConflictError, InvalidRequestError, NotFoundError } from '../errors.js';
import { type CronJobRecord, type CronJobView, type CronRun, cronJobIdPattern, viewCronJob } from './cron-job.js';
import { checkAgentIdFormat, checkConversationKey, checkName, checkPrompt, checkScheduleExpression, checkTimeZone } from './cron-job-fields.js';
import type { CronJobsRepository } from './cron-jobs-repository.js';
import type { CronJobObserver } from './cron-scheduler.js';

/** `POST /accounts/me/cron-jobs`. */
export interface CronJobInput {
  name: unknown;
  agentId: unknown;
  conversationKey: unknown;
  prompt: unknown;
  scheduleExpression: unknown;
  timezone?: unknown;
}

/** `PATCH /accounts/me/cron-jobs/{cronJobId}`: any of these. */
export interface CronJobPatch {
  status?: unknown;
  name?: unknown;
  prompt?: unknown;
  scheduleExpression?: unknown;
  timezone?: unknown;
  conversationKey?: unknown;
}

export interface CronJobsOptions {
  repository: CronJobsRepository;
  agents: Agents;
  /** Told after every write, so changes take effect at once. */
  scheduler: CronJobObserver;
  now: () => Date;
}

/**
 * The first slot from `now` on (see `firstFireTime`: `rate()` fires at once), never at or
 * before a slot that already fired: a resume in the minute of the last fire must not fire
 * that minute again.
 */
function firstSlot(schedule: Schedule, timezone: string, now: Date, anchorAt: string, lastFiredSlot: string | null): string | null {
  const anchor = new Date(anchorAt);
  const first = firstFireTime(schedule, timezone, now, anchor);
  if (first === null || lastFiredSlot === null || first.getTime() > Date.parse(lastFiredSlot)) return first?.toISOString() ?? null;
  return nextFireTime(schedule, timezone, new Date(lastFiredSlot), anchor)?.toISOString() ?? null;
}

/** Cron jobs of an account: validated writes; the scheduler is told of each change. */
export class CronJobs {
  constructor(private readonly options: CronJobsOptions) {}

  async create(accountId: string, input: CronJobInput): Promise<CronJobView> {
    const name = checkName(input.name);
    const agentId = checkAgentIdFormat(input.agentId);
    const conversationKey = checkConversationKey(input.conversationKey);
    const prompt = checkPrompt(input.prompt);
    const timezone = checkTimeZone(input.timezone);
    const { expression, schedule } = checkScheduleExpression(input.scheduleExpression);
    const now = this.options.now();
    validateForCreation(schedule, timezone, now);
    await this.assertAgent(accountId, agentId);
    const timestamp = now.toISOString();
    const job: CronJobRecord = {
      kind: 'job',
      cronJobId: `cron_${randomUUID()}`,
      accountId,
      name,
      agentId,
      conversationKey,
      prompt,
      scheduleExpression: expression,
      timezone,
      status: 'active',
      nextRunAt: firstSlot(schedule, timezone, now, timestamp, null),
      lastRunAt: null,
      lastRunStatus: null,
      anchorAt: timestamp,
      lastFiredSlot: null,
      createdAt: timestamp,
      updatedAt: timestamp,
    };
    await this.options.repository.create(job);
    this.options.scheduler.jobChanged(job);
    return viewCronJob(job);
  }

  async list(accountId: string): Promise<CronJobView[]> {
    return (await this.options.repository.list(accountId)).map(viewCronJob);
  }

  async get(accountId: string, cronJobId: string): Promise<CronJobView> {
    return viewCronJob(await this.load(accountId, cronJobId));
  }

  /** Newest first. */
  async runs(accountId: string, cronJobId: string): Promise<CronRun[]> {
    await this.load(accountId, cronJobId);
    return this.options.repository.runs(accountId, cronJobId);
  }

  async update(accountId: string, cronJobId: string, patch: CronJobPatch): Promise<CronJobView> {
    await this.load(accountId, cronJobId);
    if (Object.values(patch).every((value) => value === undefined)) {
      throw new InvalidRequestError('body: send at least one of status, name, prompt, scheduleExpression, timezone, conversationKey.');
    }
    if (patch.status !== undefined && patch.status !== 'active' && patch.status !== 'paused') {
      throw new InvalidRequestError('status: must be "active" or "paused".');
    }
    const fields: Partial<CronJobRecord> = {};
    if (patch.name !== undefined) fields.name = checkName(patch.name);
    if (patch.prompt !== undefined) fields.prompt = checkPrompt(patch.prompt);
    if (patch.conversationKey !== undefined) fields.conversationKey = checkConversationKey(patch.conversationKey);
    if (patch.timezone !== undefined) fields.timezone = checkTimeZone(patch.timezone);
    if (patch.scheduleExpression !== undefined) fields.scheduleExpression = checkScheduleExpression(patch.scheduleExpression).expression;
    const now = this.options.now();
    const updated = await this.options.repository.modify(accountId, cronJobId, (job) => this.applyPatch(job, fields, patch.status as 'active' | 'paused' | undefined, now));
    if (!updated) throw new NotFoundError(`No cron job ${cronJobId}.`);
    this.options.scheduler.jobChanged(updated);
    return viewCronJob(updated);
  }

  async delete(accountId: string, cronJobId: string): Promise<void> {
    await this.load(accountId, cronJobId);
    if (!(await this.options.repository.delete(accountId, cronJobId))) throw new NotFoundError(`No cron job ${cronJobId}.`);
    this.options.scheduler.jobRemoved(cronJobId);
  }

  /** The agent deletion guard: an agent that cron jobs still name is not deleted (409). */
  agentDeletionRefusal(accountId: string, agentId: string): Promise<string | undefined> {
    return cronJobsNamingAgent(this.options.repository)(accountId, agentId);
  }

  private async load(accountId: string, cronJobId: string): Promise<CronJobRecord> {
    const found = cronJobIdPattern.test(cronJobId) ? await this.options.repository.get(accountId, cronJobId) : undefined;
    if (!found) throw new NotFoundError(`No cron job ${cronJobId}.`);
    return found.job;
  }

  private async assertAgent(accountId: string, agentId: string): Promise<void> {
    try {
      await this.options.agents.load(accountId, agentId);
    } catch (error) {
      if (error instanceof NotFoundError) throw new InvalidRequestError(`agentId: no agent "${agentId}" in this account.`);
      throw error;
    }
  }

  /**
   * The job after a PATCH. A new expression or zone, or a resume, computes the next slot from
   * now (and restarts a rate's count); a prompt or name change is read by the next fire.
   */
  private applyPatch(job: CronJobRecord, fields: Partial<CronJobRecord>, status: 'active' | 'paused' | undefined, now: Date): CronJobRecord {
    const next: CronJobRecord = { ...job, ...fields, updatedAt: now.toISOString() };
    const expressionChanged = next.scheduleExpression !== job.scheduleExpression;
    const scheduleChanged = expressionChanged || next.timezone !== job.timezone;
    if (status === 'paused' && job.status === 'completed') {
      throw new ConflictError(`Cron job ${job.cronJobId} is completed; send a new scheduleExpression or status "active" to run it again.`);
    }
    // A completed job is re-armed by a new schedule, as by a resume.
    next.status = status ?? (job.status === 'completed' && scheduleChanged ? 'active' : job.status);
    const resumed = next.status === 'active' && job.status !== 'active';
    if (next.status === 'paused') {
      next.nextRunAt = null;
    } else if (next.status === 'active' && (resumed || scheduleChanged)) {
      const schedule = checkScheduleExpression(next.scheduleExpression).schedule;
      validateForCreation(schedule, next.timezone, now);
      if (resumed || expressionChanged) next.anchorAt = now.toISOString();
      next.nextRunAt = firstSlot(schedule, next.timezone, now, next.anchorAt, job.lastFiredSlot);
    } else if (scheduleChanged) {
      // Paused: the new schedule must still be valid; the slot is computed on resume.
      validateForCreation(checkScheduleExpression(next.scheduleExpression).schedule, next.timezone, now);
    }
    return next;
  }
}

/** Refuses deleting an agent that cron jobs still name (the agents' deletion guard; it reads the cron jobs table only). */
export function cronJobsNamingAgent(repository: Pick<CronJobsRepository, 'list'>): (accountId: string, agentId: string) => Promise<string | undefined> {
  return async (accountId, agentId) => {
    const naming = (await repository.list(accountId)).filter((job) => job.agentId === agentId);
    if (naming.length === 0) return undefined;
    const listed = naming.map((job) => `"${job.name}" (${job.cronJobId})`).join(', ');
    return `Agent "${agentId}" is still named by ${naming.length === 1 ? 'cron job' : 'cron jobs'} ${listed}; delete ${naming.length === 1 ? 'it' : 'them'} first.`;
  };
}
