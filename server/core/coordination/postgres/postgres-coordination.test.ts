import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { coordinationReplicasPerTest } from '../../../../test/support/coordination-replicas.js';
import { postgresForThisFile } from '../../../../test/support/test-postgres.js';
import type { JobDelivery, JobQueue } from '../job-queue.js';
import type { Coordination } from '../coordination.js';

const postgres = postgresForThisFile();

interface TestJob {
  id: string;
}

const spec = { name: 'test', keyOf: (job: TestJob) => job.id };

describe('coordination on PostgreSQL (replicas in one process, one schema)', () => {
  const replicas = coordinationReplicasPerTest(postgres, 2);
  const queues: JobQueue<TestJob>[] = [];
  // After-hooks run last-registered first: the queues stop before their replicas close.
  afterEach(async () => {
    for (const queue of queues.splice(0)) await queue.stop();
  });

  const replica = (leaseMs?: number, start = true, replicaName?: string) => {
    const coordination = replicas.replica(leaseMs, replicaName);
    if (start) void coordination.start();
    return coordination;
  };
  const storedJobs = async () => Number((await postgres.admin.query<{ jobs: string }>(`SELECT count(*) AS jobs FROM ${replicas.schema}.harness_jobs`))[0]!.jobs);
  const queueOn = (coordination: Coordination, run: (job: TestJob, delivery: JobDelivery) => Promise<void>, concurrency = 4) => {
    const queue = coordination.jobQueues(run, concurrency, spec);
    queues.push(queue);
    return queue;
  };

  it('runs each job once across three replicas, the same job pushed twice being one job', async () => {
    const runs = new Map<string, number>();
    const run = async (job: TestJob) => {
      runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 1));
    };
    const coordinations = [replica(30_000, false), replica(30_000, false), replica(30_000, false)];
    const replicas = coordinations.map((coordination) => queueOn(coordination, run));
    // Stored before any replica claims: 100 of the pushes repeat a job that waits.
    for (let index = 0; index < 300; index += 1) replicas[index % 3]!.push({ id: `job-${index % 200}` });
    while ((await storedJobs()) < 200) await new Promise((resolve) => setTimeout(resolve, 10));
    await Promise.all(coordinations.map((coordination) => coordination.start()));
    for (const queue of replicas) await queue.idle();
    expect(runs.size).toBe(200);
    expect([...runs.values()].filter((count) => count !== 1)).toEqual([]);
  });

  /** Has `coordination` claim a job `held` and never finish it; resolves once it is claimed. */
  async function holdJobForever(coordination: Parameters<typeof queueOn>[0]): Promise<void> {
    let started!: () => void;
    const claimed = new Promise<void>((resolve) => (started = resolve));
    queueOn(coordination, () => {
      started();
      return new Promise<void>(() => undefined);
    }).push({ id: 'held' });
    await claimed;
  }

  /** Closes `coordination` now, as a kill would, and leaves it and the queues out of the clean-up. */
  async function kill(coordination: Coordination): Promise<void> {
    queues.splice(0);
    await replicas.kill(coordination);
  }

  it('delivers a job again, with a higher attempt, once the lease of a replica that stopped renewing runs out', async () => {
    const dead = replica(1_000);
    const deliveries: JobDelivery[] = [];
    // The first replica takes the job and never finishes it: its connections are cut, as by a kill.
    await holdJobForever(dead);
    await kill(dead);
    const survivor = queueOn(replica(1_000), async (_job, delivery) => {
      deliveries.push(delivery);
    });
    await survivor.idle();
    expect(deliveries).toEqual([{ attempt: 2 }]);
  });

  it('hands what a killed process held to the next process of the same replica at once, not after the lease', async () => {
    const dead = replica(60_000, true, 'restarted');
    await holdJobForever(dead);
    await dead.conversationLocks.acquire('conversation-c');
    await kill(dead);
    // A 60 s lease: only the release at start lets this finish within the test's time.
    const again = replica(60_000, false, 'restarted');
    await again.start();
    const deliveries: JobDelivery[] = [];
    await queueOn(again, async (_job, delivery) => {
      deliveries.push(delivery);
    }).idle();
    (await again.conversationLocks.acquire('conversation-c'))();
    expect(deliveries).toEqual([{ attempt: 2 }]);
  });

  it('ends every lease of a process that is gone at once, not after the lease, and leaves a live process its own', async () => {
    const live = replica(60_000);
    const dead = replica(60_000);
    await Promise.all([live.start(), dead.start()]);
    const liveRelease = await live.conversationLocks.acquire('conversation-live');
    await holdJobForever(dead);
    await dead.conversationLocks.acquire('conversation-dead');
    const slot = await dead.budgets.slots('turns', 1).take('acc_dead');
    expect(slot.taken).toBe(true);
    dead.runningTurns.register({ turnId: 'turn-dead', eventId: 'evt-dead', accountId: 'acc_dead', agentId: 'agent', conversationKey: 'dead' }, () => undefined);
    while ((await postgres.admin.query(`SELECT 1 FROM ${replicas.schema}.harness_running_turns WHERE turn_id = 'turn-dead'`)).length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    // The process dies: its sessions end, its presence lock with them. Its leases have 60 s left.
    await kill(dead);

    const survivor = replica(60_000);
    await survivor.start();
    const deliveries: JobDelivery[] = [];
    await queueOn(survivor, async (_job, delivery) => {
      deliveries.push(delivery);
    }).idle();
    expect(deliveries).toEqual([{ attempt: 2 }]);
    (await survivor.conversationLocks.acquire('conversation-dead'))();
    expect((await survivor.budgets.slots('turns', 1).take('acc_dead')).taken).toBe(true);
    expect(await postgres.admin.query(`SELECT turn_id FROM ${replicas.schema}.harness_running_turns`)).toEqual([]);
    // The live process keeps its lease through the sweeps of the others.
    const owners = await postgres.admin.query<{ name: string }>(`SELECT name FROM ${replicas.schema}.harness_leases WHERE name = 'conversation:conversation-live'`);
    expect(owners).toEqual([{ name: 'conversation:conversation-live' }]);
    liveRelease();
  });

  it('lets one replica at a time hold a conversation lock, and frees it when the holder stops renewing', async () => {
    const [first, second] = [replica(1_000), replica(1_000)];
    const order: string[] = [];
    const releaseFirst = await first.conversationLocks.acquire('conversation-a');
    const waiting = second.conversationLocks.acquire('conversation-a').then((release) => {
      order.push('second');
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    order.push('first releases');
    releaseFirst();
    (await waiting)();
    expect(order).toEqual(['first releases', 'second']);

    // A holder that dies keeps the lock only until its lease runs out.
    await first.conversationLocks.acquire('conversation-b');
    await replicas.kill(first);
    const before = Date.now();
    (await second.conversationLocks.acquire('conversation-b'))();
    expect(Date.now() - before).toBeLessThan(5_000);
    const pool = new pg.Pool({ connectionString: replicas.url, max: 1 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await pool.query('SELECT name FROM harness_leases')).rows).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});
