import { modifyRows, readAndWrite } from '../storage/read-and-write.js';
import type { TableStore, WriteDecision, WriteOperation } from '../storage/table-store.js';
import { type CronJobRecord, type CronRun, type CronRunsRecord, type CronTableRow, runHistoryLimit } from './cron-job.js';

const runsKey = (cronJobId: string): string => `runs:${cronJobId}`;
const maxAttempts = 20;

/** A job moved past its due slot, with the version it was read at and the run that slot starts. */
export interface SlotClaim {
  claimed: CronJobRecord;
  jobVersion: number;
  run: CronRun;
}

/** What `claimDue` did: the slots claimed, and the jobs read that were not due. */
export interface DueClaims {
  claims: SlotClaim[];
  unclaimed: CronJobRecord[];
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
    return modifyRows(
      this.table,
      accountId,
      [cronJobId],
      ([row]): WriteDecision<CronTableRow, CronJobRecord | undefined> => {
        if (row?.value.kind !== 'job') return { operations: [], result: undefined };
        const next = change(row.value);
        if (!next) return { operations: [], result: row.value };
        return { operations: [{ type: 'put', key: cronJobId, value: next, expectedVersion: row.version }], result: next };
      },
      maxAttempts,
    );
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
   * The exactly-once step, for the due jobs of one account at once: `prepare` gets each job as
   * stored and returns its claim (the job moved past its slot, and the run that slot starts),
   * or undefined when it is not due. Every claim is written with its run at the head of the
   * job's history in one batch, conditional on the versions read; so a slot another scheduler
   * claimed first is seen as claimed, never claimed twice. On PostgreSQL the schedulers of
   * several replicas take turns on the account (one read and one write each, no retry); the
   * one that comes second finds nothing left to claim.
   */
  async claimDue(accountId: string, cronJobIds: string[], prepare: (job: CronJobRecord) => Omit<SlotClaim, 'jobVersion'> | undefined): Promise<DueClaims> {
    const keys = cronJobIds.flatMap((cronJobId) => [cronJobId, runsKey(cronJobId)]);
    return readAndWrite(this.table, accountId, keys, (rows) => {
      const found = new Map(rows.map((row) => [row.key, row]));
      const decided: DueClaims = { claims: [], unclaimed: [] };
      const operations: WriteOperation<CronTableRow>[] = [];
      for (const cronJobId of cronJobIds) {
        const row = found.get(cronJobId);
        if (row?.value.kind !== 'job') continue;
        const claim = prepare(row.value);
        if (!claim) {
          decided.unclaimed.push(row.value);
          continue;
        }
        const history = found.get(runsKey(cronJobId));
        const runs = history?.value.kind === 'runs' ? history.value.runs : [];
        operations.push(
          { type: 'put', key: cronJobId, value: claim.claimed, expectedVersion: row.version },
          { type: 'put', key: runsKey(cronJobId), value: { kind: 'runs', cronJobId, runs: [claim.run, ...runs].slice(0, runHistoryLimit) }, expectedVersion: history ? history.version : null },
        );
        decided.claims.push({ ...claim, jobVersion: row.version });
      }
      return { operations, result: decided };
    });
  }

  /**
   * Change one run (and the job's `lastRunStatus` when it is the newest run) in one batch.
   * `change` returns the new run, or undefined to leave it. Returns the run as stored.
   */
  async updateRun(accountId: string, cronJobId: string, runId: string, change: (run: CronRun) => CronRun | undefined): Promise<CronRun | undefined> {
    return modifyRows(
      this.table,
      accountId,
      [runsKey(cronJobId), cronJobId],
      (rows): WriteDecision<CronTableRow, CronRun | undefined> => {
        const history = rows.find((row) => row.key === runsKey(cronJobId));
        const job = rows.find((row) => row.key === cronJobId);
        if (history?.value.kind !== 'runs') return { operations: [], result: undefined };
        const index = history.value.runs.findIndex((run) => run.runId === runId);
        const current = history.value.runs[index];
        if (!current) return { operations: [], result: undefined };
        const next = change(current);
        if (!next) return { operations: [], result: current };
        const runs = history.value.runs.map((run, position) => (position === index ? next : run));
        const operations: WriteOperation<CronTableRow>[] = [
          { type: 'put', key: runsKey(cronJobId), value: { ...history.value, runs }, expectedVersion: history.version },
        ];
        if (index === 0 && job?.value.kind === 'job') {
          operations.push({ type: 'put', key: cronJobId, value: { ...job.value, lastRunStatus: next.status }, expectedVersion: job.version });
        }
        return { operations, result: next };
      },
      maxAttempts,
    );
  }
}
