import { ConditionFailedError, type TableStore } from '../storage/table-store.js';
import { type CronJobRecord, type CronRun, type CronRunsRecord, type CronTableRow, runHistoryLimit } from './cron-job.js';

const runsKey = (cronJobId: string): string => `runs:${cronJobId}`;
const maxAttempts = 20;

/** A job moved past its due slot, with the version it was read at and the run that slot starts. */
export interface SlotClaim {
  claimed: CronJobRecord;
  jobVersion: number;
  run: CronRun;
}

/** Everything stored for one account: its jobs and their run histories. */
export interface CronAccountSnapshot {
  jobs: { job: CronJobRecord; version: number }[];
  runs: CronRunsRecord[];
}

/**
 * Cron jobs, one partition per account: a row per job (key: the job id) and a row per job's
 * run history (key `runs:<jobId>`). Every change is a compare-and-set on the row versions.
 */
export class CronJobsRepository {
  constructor(private readonly table: TableStore<CronTableRow>) {}

  async get(accountId: string, cronJobId: string): Promise<{ job: CronJobRecord; version: number } | undefined> {
    const row = await this.table.get(accountId, cronJobId);
    return row?.value.kind === 'job' ? { job: row.value, version: row.version } : undefined;
  }

  /** The account's jobs, oldest first. */
  async list(accountId: string): Promise<CronJobRecord[]> {
    return (await this.snapshot(accountId)).jobs.map((entry) => entry.job).sort((left, right) => left.createdAt.localeCompare(right.createdAt) || left.cronJobId.localeCompare(right.cronJobId));
  }

  /** Accounts that hold at least one job or run history. */
  accounts(): Promise<string[]> {
    return this.table.listPartitions();
  }

  async snapshot(accountId: string): Promise<CronAccountSnapshot> {
    const snapshot: CronAccountSnapshot = { jobs: [], runs: [] };
    for (const row of await this.table.list(accountId)) {
      if (row.value.kind === 'job') snapshot.jobs.push({ job: row.value, version: row.version });
      else snapshot.runs.push(row.value);
    }
    return snapshot;
  }

  /** Throws `ConditionFailedError` when the id is taken. */
  async create(job: CronJobRecord): Promise<void> {
    await this.table.write(job.accountId, [{ type: 'put', key: job.cronJobId, value: job, expectedVersion: null }]);
  }

  /**
   * Change a job with compare-and-set, retrying when a scheduler claimed a slot in between.
   * `change` returns the new job, or undefined to leave it; it may throw to refuse.
   * Resolves with the job as stored afterwards, or undefined when there is no such job.
   */
  async modify(accountId: string, cronJobId: string, change: (job: CronJobRecord) => CronJobRecord | undefined): Promise<CronJobRecord | undefined> {
    for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
      const current = await this.get(accountId, cronJobId);
      if (!current) return undefined;
      const next = change(current.job);
      if (!next) return current.job;
      try {
        await this.table.write(accountId, [{ type: 'put', key: cronJobId, value: next, expectedVersion: current.version }]);
        return next;
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
      }
    }
    throw new Error(`Cron job ${cronJobId} kept changing under ${maxAttempts} attempts to modify it.`);
  }

  /** Removes the job and its run history; false when there was no such job. */
  async delete(accountId: string, cronJobId: string): Promise<boolean> {
    const current = await this.get(accountId, cronJobId);
    if (!current) return false;
    await this.table.write(accountId, [
      { type: 'delete', key: cronJobId },
      { type: 'delete', key: runsKey(cronJobId) },
    ]);
    return true;
  }

  /** Newest first. */
  async runs(accountId: string, cronJobId: string): Promise<CronRun[]> {
    const row = await this.table.get(accountId, runsKey(cronJobId));
    return row?.value.kind === 'runs' ? row.value.runs : [];
  }

  /**
   * The exactly-once step: write the job as `claimed` (its `lastFiredSlot` and `nextRunAt`
   * moved past the slot) only if the job row is still at `jobVersion`, together with the new
   * run at the head of the history. False when another writer changed the job first (another
   * scheduler claimed the slot, or the job was paused, changed or deleted).
   */
  async claimSlot(claimed: CronJobRecord, jobVersion: number, run: CronRun): Promise<boolean> {
    const { accountId, cronJobId } = claimed;
    for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
      const history = await this.table.get(accountId, runsKey(cronJobId));
      const runs = history?.value.kind === 'runs' ? history.value.runs : [];
      const record: CronRunsRecord = { kind: 'runs', cronJobId, runs: [run, ...runs].slice(0, runHistoryLimit) };
      try {
        await this.table.write(accountId, [
          { type: 'put', key: cronJobId, value: claimed, expectedVersion: jobVersion },
          { type: 'put', key: runsKey(cronJobId), value: record, expectedVersion: history ? history.version : null },
        ]);
        return true;
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
        // Only a change of the run history (a run settling) is worth another try.
        if ((await this.table.get(accountId, cronJobId))?.version !== jobVersion) return false;
      }
    }
    throw new Error(`Cron job ${cronJobId}: gave up claiming a slot after ${maxAttempts} attempts.`);
  }

  /**
   * Several claims of one account in one atomic batch (one durable write for a burst of due
   * jobs). All or nothing: false when any job or history changed since it was read.
   */
  async claimSlots(accountId: string, claims: SlotClaim[]): Promise<boolean> {
    const operations: Parameters<TableStore<CronTableRow>['write']>[1] = [];
    for (const { claimed, jobVersion, run } of claims) {
      const history = await this.table.get(accountId, runsKey(claimed.cronJobId));
      const runs = history?.value.kind === 'runs' ? history.value.runs : [];
      operations.push(
        { type: 'put', key: claimed.cronJobId, value: claimed, expectedVersion: jobVersion },
        { type: 'put', key: runsKey(claimed.cronJobId), value: { kind: 'runs', cronJobId: claimed.cronJobId, runs: [run, ...runs].slice(0, runHistoryLimit) }, expectedVersion: history ? history.version : null },
      );
    }
    try {
      await this.table.write(accountId, operations);
      return true;
    } catch (error) {
      if (error instanceof ConditionFailedError) return false;
      throw error;
    }
  }

  /**
   * Change one run (and the job's `lastRunStatus` when it is the newest run) in one batch.
   * `change` returns the new run, or undefined to leave it. Returns the run as stored.
   */
  async updateRun(accountId: string, cronJobId: string, runId: string, change: (run: CronRun) => CronRun | undefined): Promise<CronRun | undefined> {
    for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
      const [history, job] = await Promise.all([this.table.get(accountId, runsKey(cronJobId)), this.table.get(accountId, cronJobId)]);
      if (history?.value.kind !== 'runs') return undefined;
      const index = history.value.runs.findIndex((run) => run.runId === runId);
      const current = history.value.runs[index];
      if (!current) return undefined;
      const next = change(current);
      if (!next) return current;
      const runs = history.value.runs.map((run, position) => (position === index ? next : run));
      const operations: Parameters<TableStore<CronTableRow>['write']>[1] = [
        { type: 'put', key: runsKey(cronJobId), value: { ...history.value, runs }, expectedVersion: history.version },
      ];
      if (index === 0 && job?.value.kind === 'job') {
        operations.push({ type: 'put', key: cronJobId, value: { ...job.value, lastRunStatus: next.status }, expectedVersion: job.version });
      }
      try {
        await this.table.write(accountId, operations);
        return next;
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
      }
    }
    throw new Error(`Cron job ${cronJobId}: run ${runId} kept changing under ${maxAttempts} attempts to update it.`);
  }
}
