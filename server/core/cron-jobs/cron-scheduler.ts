import type { Logger } from '../logger.js';
import type { CronJobRecord, CronRun } from './cron-job.js';
import type { CronJobsRepository, SlotClaim } from './cron-jobs-repository.js';
import type { CronEventOutcome, CronRunLauncher } from './cron-run-launcher.js';
import { traceCronFire } from './cron-fire-span.js';
import { DueQueue, type DueEntry } from './due-queue.js';
import { maxTimerDelayMs, type SchedulerClock, type SchedulerTimer } from './scheduler-clock.js';
import { dueSlotClaim, finalRunStatus, ScheduleCache } from './slot-claim.js';

export interface CronSchedulerOptions {
  repository: CronJobsRepository;
  launcher: CronRunLauncher;
  clock: SchedulerClock;
  logger: Logger;
  /**
   * Re-read the jobs and unfinished runs from storage this often (replicas sharing storage:
   * jobs written through another replica join this agenda, and runs that ended or whose
   * claimant died are recorded). Undefined: never; one process hears of every change itself.
   */
  resyncIntervalMs?: number;
}

/** What `start()` found in storage. */
export interface CronStartReport {
  activeJobs: number;
  /** Runs that had not ended at the last stop: submitted again (idempotent) and watched. */
  runsResumed: number;
}

/** What the service tells the scheduler after it writes a job. */
export interface CronJobObserver {
  jobChanged(job: CronJobRecord): void;
  jobRemoved(cronJobId: string): void;
}

interface PendingRun {
  accountId: string;
  cronJobId: string;
  runId: string;
}

/**
 * Fires cron jobs. The schedule engine says when; this only sleeps until the earliest due job
 * (one timer for all jobs, over a min-heap) and then claims the slot with a conditional write
 * on the job row before it submits the run, so a slot fires once whatever else runs or
 * restarts. See docs/cron-jobs.md.
 */
export class CronScheduler implements CronJobObserver {
  private readonly queue = new DueQueue();
  private readonly pendingRuns = new Map<string, PendingRun>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly schedules = new ScheduleCache();
  private timer: SchedulerTimer | undefined;
  private armedFor = Number.POSITIVE_INFINITY;
  private running = false;
  /** Slots before this instant passed while no scheduler of this process ran: catch-ups. */
  private startedAt = 0;
  private unsubscribe: (() => void) | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: CronSchedulerOptions) {}

  get isRunning(): boolean {
    return this.running;
  }

  /** Jobs waiting for a slot. */
  get scheduledJobs(): number {
    return this.queue.size;
  }

  /** Load every active job, finish runs a stop interrupted, and start sleeping until the first slot. */
  async start(): Promise<CronStartReport> {
    if (this.running) return { activeJobs: this.queue.size, runsResumed: 0 };
    this.running = true;
    this.startedAt = this.options.clock.now().getTime();
    this.unsubscribe = this.options.launcher.onOutcome((outcome) => {
      if (this.pendingRuns.has(outcome.eventId)) this.track(this.settle(outcome));
    });
    const report = await this.load((job, run) => this.launch(job, run));
    this.arm();
    this.scheduleResync();
    this.options.logger.info({ event: 'cron-scheduler', ...report }, 'cron scheduler started');
    return report;
  }

  /** Every job of storage on the agenda; `resume` called for every run still `running`. */
  private async load(resume: (job: CronJobRecord, run: CronRun) => Promise<void>): Promise<CronStartReport> {
    const report: CronStartReport = { activeJobs: 0, runsResumed: 0 };
    for (const accountId of await this.options.repository.accounts()) {
      if (!this.running) break;
      const { jobs, runs } = await this.options.repository.snapshot(accountId);
      const jobsById = new Map(jobs.map((entry) => [entry.job.cronJobId, entry.job]));
      for (const { job } of jobs) if (this.enqueue(job)) report.activeJobs += 1;
      for (const history of runs) {
        const job = jobsById.get(history.cronJobId);
        if (!job) continue;
        for (const run of history.runs) {
          if (run.status !== 'running') continue;
          report.runsResumed += 1;
          this.track(resume(job, run));
        }
      }
    }
    return report;
  }

  private scheduleResync(): void {
    const interval = this.options.resyncIntervalMs;
    if (interval === undefined || !this.running) return;
    this.resyncTimer = setTimeout(() => {
      this.resyncTimer = undefined;
      this.track(this.resync().finally(() => this.scheduleResync()));
    }, interval);
    this.resyncTimer.unref();
  }

  /**
   * What other replicas did since: their new and changed jobs join the agenda (a slot is still
   * claimed once, by a conditional write, whichever replica wins), and each unfinished run is
   * looked up: ended (its event ran on another replica) → recorded; never submitted (the
   * replica that claimed it died first) → submitted with its stored event id, which starts it
   * once however many replicas try.
   */
  private async resync(): Promise<void> {
    if (!this.running) return;
    await this.load((job, run) => this.resume(job, run));
    this.arm();
  }

  private async resume(job: CronJobRecord, run: CronRun): Promise<void> {
    const outcome = await this.options.launcher.outcome(job.accountId, run.eventId);
    if (!outcome) {
      await this.launch(job, run);
      return;
    }
    this.pendingRuns.set(run.eventId, { accountId: job.accountId, cronJobId: job.cronJobId, runId: run.runId });
    await this.settle(outcome);
  }

  /** Stop firing at once; wait for fires already under way. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.resyncTimer) clearTimeout(this.resyncTimer);
    this.resyncTimer = undefined;
    this.timer?.cancel();
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.idle();
    this.queue.clear();
    this.pendingRuns.clear();
  }

  /** Resolves when no fire or run update is under way (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  jobChanged(job: CronJobRecord): void {
    this.enqueue(job);
    this.arm();
  }

  jobRemoved(cronJobId: string): void {
    this.queue.delete(cronJobId);
  }

  /** Puts an active job with a next slot on the agenda (or takes it off); true when it is on. */
  private enqueue(job: CronJobRecord): boolean {
    if (job.status !== 'active' || job.nextRunAt === null) {
      this.queue.delete(job.cronJobId);
      return false;
    }
    this.queue.set({ dueAt: Date.parse(job.nextRunAt), accountId: job.accountId, cronJobId: job.cronJobId });
    return true;
  }

  /** One timer, for the earliest due job; re-armed only when an earlier one appears. */
  private arm(): void {
    if (!this.running) return;
    const top = this.queue.peek();
    if (!top || (this.timer && top.dueAt >= this.armedFor)) return;
    this.timer?.cancel();
    this.armedFor = top.dueAt;
    const delay = Math.min(top.dueAt - this.options.clock.now().getTime(), maxTimerDelayMs);
    this.timer = this.options.clock.setTimer(() => this.wake(), delay);
  }

  private wake(): void {
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    if (!this.running) return;
    const byAccount = new Map<string, DueEntry[]>();
    for (const entry of this.queue.takeDue(this.options.clock.now().getTime())) {
      const entries = byAccount.get(entry.accountId);
      if (entries) entries.push(entry);
      else byAccount.set(entry.accountId, [entry]);
    }
    // Replicas wake at the same instant with the same due accounts. Each takes them in its
    // own random order, so they mostly claim different accounts instead of all queueing on
    // the same account's lock and finding it claimed one after another.
    const accounts = [...byAccount];
    for (let index = accounts.length - 1; index > 0; index -= 1) {
      const other = Math.floor(Math.random() * (index + 1));
      [accounts[index], accounts[other]] = [accounts[other]!, accounts[index]!];
    }
    for (const [accountId, entries] of accounts) this.track(this.fireAccount(accountId, entries));
    this.arm();
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => {
      this.options.logger.error({ event: 'cron-scheduler', error: (error as Error).message }, 'cron scheduler work failed');
    });
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  /**
   * Fire the due jobs of one account: one read of their rows, the claims worked out from
   * them, and every claim written in one conditional batch (one durable write for a burst),
   * then the runs submitted. Jobs found not due (moved by a change, or claimed by another
   * scheduler) go back on the agenda at their next slot.
   */
  private async fireAccount(accountId: string, entries: DueEntry[]): Promise<void> {
    if (!this.running) return;
    const { claims, unclaimed } = await this.options.repository.claimDue(
      accountId,
      entries.map((entry) => entry.cronJobId),
      (job) => this.prepareClaim(job),
    );
    for (const job of unclaimed) {
      if (this.running && job.status === 'active' && job.nextRunAt !== null && Date.parse(job.nextRunAt) > this.options.clock.now().getTime()) this.jobChanged(job);
    }
    await Promise.all(claims.map((claim) => this.claimed(claim)));
  }

  /** The claim of a job's due slot, or undefined when it is not due (anymore). */
  private prepareClaim(job: CronJobRecord): Omit<SlotClaim, 'jobVersion'> | undefined {
    if (!this.running) return undefined;
    return dueSlotClaim(job, this.options.clock.now().getTime(), this.startedAt, (expression) => this.schedules.get(expression));
  }

  /** The slot is ours: put the job back on the agenda and submit the run. */
  private async claimed({ claimed, run }: SlotClaim): Promise<void> {
    if (claimed.status === 'active') this.jobChanged(claimed);
    this.options.logger.info({ event: 'cron-fire', cronJobId: claimed.cronJobId, scheduledFor: run.scheduledFor, eventId: run.eventId, ...(run.catchUp ? { missedSlots: run.catchUp.missedSlots } : {}) }, 'cron job fired');
    await traceCronFire(claimed, run, () => this.launch(claimed, run));
  }

  /**
   * Submit a claimed run. Its event id was stored with the claim, so after a crash between the
   * claim and the submit, the next start submits again and a run that did get through is found,
   * not started twice. No write here: the claim already recorded the run as `running`.
   */
  private async launch(job: CronJobRecord, run: CronRun): Promise<void> {
    const { accountId, cronJobId } = job;
    this.pendingRuns.set(run.eventId, { accountId, cronJobId, runId: run.runId });
    try {
      await this.options.launcher.submit({ accountId, agentId: job.agentId, conversationKey: job.conversationKey, prompt: job.prompt, eventId: run.eventId });
    } catch (error) {
      // Stopping: leave the run `running`; the next start submits it again.
      if (!this.running) return;
      this.pendingRuns.delete(run.eventId);
      const message = (error as Error).message;
      this.options.logger.warn({ event: 'cron-fire', cronJobId, eventId: run.eventId, error: message }, 'cron run could not start');
      await this.options.repository.updateRun(accountId, cronJobId, run.runId, (current) =>
        current.status === 'running' ? { ...current, status: 'failed', finishedAt: this.options.clock.now().toISOString(), error: message } : undefined,
      );
      return;
    }
    // The run may have ended before anyone listened (or while no scheduler ran).
    await this.checkOutcome(accountId, run.eventId);
  }

  private async checkOutcome(accountId: string, eventId: string): Promise<void> {
    const outcome = await this.options.launcher.outcome(accountId, eventId);
    if (outcome) await this.settle(outcome);
  }

  /** Record how a run ended, once. */
  private async settle(outcome: CronEventOutcome): Promise<void> {
    const pending = this.pendingRuns.get(outcome.eventId);
    const final = finalRunStatus(outcome.status, outcome.error);
    if (!pending || !final) return;
    this.pendingRuns.delete(outcome.eventId);
    const finishedAt = this.options.clock.now().toISOString();
    await this.options.repository.updateRun(pending.accountId, pending.cronJobId, pending.runId, (run) =>
      run.status === 'running' ? { ...run, status: final.status, finishedAt, ...(final.error ? { error: final.error } : {}), ...(outcome.deniedTools ? { deniedTools: outcome.deniedTools } : {}) } : undefined,
    );
  }
}
