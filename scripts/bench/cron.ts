/**
 * Cron scheduler at 10,000 active jobs, on the real lowdb storage and the real clock:
 * - memory: heap used before and after a fresh scheduler loads every job (what a restarted
 *   process pays: the storage's cached partitions plus the agenda);
 * - fire delay: from a slot to the moment its run would be submitted (the launcher is
 *   intercepted, so no model turn runs), p50 and p99, target p99 <= 1 s.
 * Slots are whole minutes (EventBridge's precision), so every job here is due at the same
 * minute: the worst case, a top-of-the-minute burst where all 10,000 slots are claimed with a
 * durable conditional write each. The clock is the real one shifted so that minute comes a few
 * seconds after loading, instead of waiting up to a minute.
 * Baseline, measured in the same run: a bare setTimeout per job for one common instant (no
 * storage, no claim), i.e. what Node's timers alone give.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CronJobRecord, CronTableRow } from '../../server/core/cron-jobs/cron-job.js';
import { CronJobsRepository } from '../../server/core/cron-jobs/cron-jobs-repository.js';
import type { CronRunLauncher } from '../../server/core/cron-jobs/cron-run-launcher.js';
import { CronScheduler } from '../../server/core/cron-jobs/cron-scheduler.js';
import { systemClock } from '../../server/core/cron-jobs/scheduler-clock.js';
import { silentLogger } from '../../server/core/logger.js';
import { LowdbStorage } from '../../server/core/storage/lowdb-storage.js';

export interface CronBenchResult {
  jobs: number;
  /** How many of them are due at the measured minute. */
  dueAtOnce: number;
  accounts: number;
  loadMs: number;
  heapBeforeMiB: number;
  heapAfterMiB: number;
  heapPerJobBytes: number;
  fired: number;
  firedTwice: number;
  delayP50Ms: number;
  delayP99Ms: number;
  delayMaxMs: number;
  baseline: { heapPerTimerBytes: number; delayP50Ms: number; delayP99Ms: number; delayMaxMs: number };
  /** ours / baseline p99. */
  p99Ratio: number;
  gcExposed: boolean;
}

const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo'];

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}

async function heapUsed(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return process.memoryUsage().heapUsed;
}

const atExpressions = new Map<string, string>();

/** The wall-clock `at()` expression of an instant in a zone. */
function atExpression(instant: number, timeZone: string): string {
  const key = `${instant} ${timeZone}`;
  let expression = atExpressions.get(key);
  if (!expression) {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
        .formatToParts(new Date(instant))
        .map((part) => [part.type, part.value]),
    );
    expression = `at(${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:00)`;
    atExpressions.set(key, expression);
  }
  return expression;
}

/**
 * A mix of the three kinds, in several zones, due at `slot`; or, when `due` is false, an
 * hourly cron whose next slot is an hour later (loaded, but not part of the burst).
 */
function benchJob(index: number, accountId: string, slot: number, createdAt: string, due: boolean): CronJobRecord {
  const timezone = zones[index % zones.length]!;
  const minute = new Date(slot).getUTCMinutes();
  const expressions = due ? ['cron(* * * * ? *)', `cron(${minute} * ? * * *)`, 'rate(5 minutes)', atExpression(slot, timezone)] : [`cron(${minute} * ? * * *)`];
  const nextRunAt = new Date(due ? slot : slot + 3_600_000).toISOString();
  return {
    kind: 'job',
    cronJobId: `cron_bench-${index}`,
    accountId,
    name: `bench job ${index}`,
    agentId: 'bench-agent',
    conversationKey: `cron:bench-${index}`,
    prompt: `benchmark prompt number ${index}`,
    scheduleExpression: expressions[index % expressions.length]!,
    timezone,
    status: 'active',
    nextRunAt,
    lastRunAt: null,
    lastRunStatus: null,
    anchorAt: new Date(slot).toISOString(),
    lastFiredSlot: null,
    createdAt,
    updatedAt: createdAt,
  };
}

async function baselineTimers(count: number, leadMs: number): Promise<CronBenchResult['baseline']> {
  const before = await heapUsed();
  const target = Date.now() + leadMs;
  const delays: number[] = [];
  const timers: NodeJS.Timeout[] = [];
  await new Promise<void>((resolve) => {
    for (let index = 0; index < count; index += 1) {
      timers.push(
        setTimeout(() => {
          delays.push(Date.now() - target);
          if (delays.length === count) resolve();
        }, target - Date.now()),
      );
    }
  });
  const after = await heapUsed();
  timers.length = 0;
  return { heapPerTimerBytes: Math.max(0, after - before) / count, delayP50Ms: percentile(delays, 0.5), delayP99Ms: percentile(delays, 0.99), delayMaxMs: Math.max(...delays) };
}

/** One scenario: `jobs` active jobs loaded, `dueAtOnce` of them due at the same minute. */
export async function runCronScenario(jobs: number, dueAtOnce: number, accounts = 100, leadMs = 8_000): Promise<CronBenchResult> {
  const folder = await mkdtemp(join(tmpdir(), 'harness-bench-cron-'));
  try {
    // The slot is a whole minute of the shifted clock, `leadMs` from now in real time.
    const realTarget = Date.now() + leadMs;
    const slot = Math.ceil(realTarget / 60_000) * 60_000;
    const offset = slot - realTarget;
    const clock = systemClock(() => new Date(Date.now() + offset));
    const createdAt = clock.now().toISOString();

    const seeding = new LowdbStorage(folder);
    const seedTable = seeding.table<CronTableRow>('cron-jobs');
    const perAccount = Math.ceil(jobs / accounts);
    await Promise.all(
      Array.from({ length: accounts }, (_unused, account) => {
        const accountId = `acc_bench-${account}`;
        const operations = [];
        for (let index = account * perAccount; index < Math.min(jobs, (account + 1) * perAccount); index += 1) {
          operations.push({ type: 'put' as const, key: `cron_bench-${index}`, value: benchJob(index, accountId, slot, createdAt, index % Math.round(jobs / dueAtOnce) === 0) as CronTableRow });
        }
        return seedTable.write(accountId, operations);
      }),
    );
    await seeding.close();

    // A fresh storage and scheduler, as a restarted process would load them.
    const heapBefore = await heapUsed();
    const storage = new LowdbStorage(folder);
    const fires = new Map<string, number>();
    const delays: number[] = [];
    let allFired!: () => void;
    const done = new Promise<void>((resolve) => (allFired = resolve));
    const launcher: CronRunLauncher = {
      async submit(request) {
        delays.push(clock.now().getTime() - slot);
        fires.set(request.eventId, (fires.get(request.eventId) ?? 0) + 1);
        if (delays.length === dueAtOnce) allFired();
        return 'submitted';
      },
      outcome: async () => undefined,
      onOutcome: () => () => {},
    };
    const scheduler = new CronScheduler({ repository: new CronJobsRepository(storage.table<CronTableRow>('cron-jobs')), launcher, clock, logger: silentLogger });
    const loadStarted = performance.now();
    const report = await scheduler.start();
    const loadMs = performance.now() - loadStarted;
    const heapAfter = await heapUsed();
    if (report.activeJobs !== jobs) throw new Error(`loaded ${report.activeJobs} of ${jobs} jobs`);
    if (Date.now() >= realTarget) throw new Error(`loading took longer than the ${leadMs} ms lead; raise it`);

    // The scheduler's timer does not hold the process open (a service's server does).
    const keepAlive = setInterval(() => {}, 1_000);
    await done;
    clearInterval(keepAlive);
    await scheduler.stop();
    await storage.close();

    const baseline = await baselineTimers(dueAtOnce, 2_000);
    const result: CronBenchResult = {
      jobs,
      dueAtOnce,
      accounts,
      loadMs,
      heapBeforeMiB: heapBefore / 2 ** 20,
      heapAfterMiB: heapAfter / 2 ** 20,
      heapPerJobBytes: (heapAfter - heapBefore) / jobs,
      fired: fires.size,
      firedTwice: [...fires.values()].filter((count) => count > 1).length,
      delayP50Ms: percentile(delays, 0.5),
      delayP99Ms: percentile(delays, 0.99),
      delayMaxMs: Math.max(...delays),
      baseline,
      p99Ratio: percentile(delays, 0.99) / Math.max(1, baseline.delayP99Ms),
      gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
    };
    console.log(`cron: ${jobs} active jobs in ${accounts} accounts, ${dueAtOnce} of them due at the same minute (real clock)`);
    console.log(`  load:   ${loadMs.toFixed(0)} ms; heap ${result.heapBeforeMiB.toFixed(1)} MiB -> ${result.heapAfterMiB.toFixed(1)} MiB (${result.heapPerJobBytes.toFixed(0)} bytes per job, storage cache + agenda)${result.gcExposed ? '' : ' [run with --expose-gc for steadier figures]'}`);
    console.log(`  fired:  ${result.fired} runs, ${result.firedTwice} slots fired twice`);
    console.log('                         p50        p99        max');
    console.log(`  scheduler (claim+fire) ${result.delayP50Ms.toFixed(0).padStart(5)} ms  ${result.delayP99Ms.toFixed(0).padStart(5)} ms  ${result.delayMaxMs.toFixed(0).padStart(5)} ms   (target p99 <= 1000 ms)`);
    console.log(`  baseline setTimeout    ${baseline.delayP50Ms.toFixed(0).padStart(5)} ms  ${baseline.delayP99Ms.toFixed(0).padStart(5)} ms  ${baseline.delayMaxMs.toFixed(0).padStart(5)} ms   (${baseline.heapPerTimerBytes.toFixed(0)} bytes per timer)`);
    return result;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The worst case (every job due at once) and a tenth of them due at once. */
export async function runCronBench(jobs = 10_000): Promise<CronBenchResult[]> {
  return [await runCronScenario(jobs, jobs), await runCronScenario(jobs, jobs / 10)];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runCronBench();
}
