import { mkdir } from 'node:fs/promises';
import { requestJson } from './json-request.js';
import { startServiceProcess, type ServiceProcess } from './service-process.js';
import { temporaryFolder } from './temporary-folder.js';
import { randomSchemaName, type TestDatabaseAdmin } from './test-postgres.js';
import { testAdminSecret, testEncryptionSecret } from './test-services.js';
import { waitUntil } from './wait-until.js';

export interface ReplicaSet {
  /** The running replicas; a killed one is replaced in place by `restart`. */
  replicas: ServiceProcess[];
  /** Kill replica `index` without warning (SIGKILL), as a crashed machine. */
  kill(index: number): Promise<void>;
  /** Start replica `index` again on its data folder. */
  restart(index: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * `count` `harness serve` processes that are one service: the same PostgreSQL database, the
 * same admin and encryption secrets from the environment, one shared bucket folder, each with
 * its own data folder and ports. The default 30 s lease: a killed replica's work is taken over
 * as soon as its presence lock is gone (`DeadOwnerSweeper`), not when the lease runs out; short
 * polls so the others notice within a second.
 */
export async function startReplicaSet(
  databaseUrl: string,
  count: number,
  environment: Record<string, string> = {},
  /** What differs between replicas (a `NATS_URL` listing the servers in another order, say), by index. */
  environmentOf: (index: number) => Record<string, string> = () => ({}),
): Promise<ReplicaSet> {
  const root = await temporaryFolder('harness-replicas-');
  const bucket = `${root.path}/bucket`;
  await mkdir(bucket, { recursive: true });
  const shared = {
    HARNESS_DATABASE_URL: databaseUrl,
    HARNESS_ADMIN_SECRET: testAdminSecret,
    HARNESS_CONFIG_ENCRYPTION_SECRET: testEncryptionSecret,
    HARNESS_BUCKET_DIR: bucket,
    HARNESS_JOB_POLL_MS: '100',
    HARNESS_CRON_RESYNC_MS: '1000',
    ...environment,
  };
  const folders = Array.from({ length: count }, (_, index) => `${root.path}/replica-${index}`);
  for (const folder of folders) await mkdir(folder, { recursive: true });
  const replicas: ServiceProcess[] = [];
  try {
    // One after another: the first migrates the schema, the others find it done.
    for (const [index, folder] of folders.entries()) replicas.push(await startServiceProcess(folder, { ...shared, ...environmentOf(index) }));
  } catch (error) {
    await Promise.allSettled(replicas.map((replica) => replica.stop()));
    await root.remove();
    throw error;
  }
  const stopped = new Set<number>();
  return {
    replicas,
    kill: async (index) => {
      stopped.add(index);
      await replicas[index]!.killHard();
    },
    restart: async (index) => {
      replicas[index] = await startServiceProcess(folders[index]!, { ...shared, ...environmentOf(index) });
      stopped.delete(index);
    },
    close: async () => {
      await Promise.allSettled(replicas.map((replica, index) => (stopped.has(index) ? undefined : replica.stop())));
      await root.remove();
    },
  };
}

/** A replica set on a schema of its own in the test database: `close` also drops the schema. */
export interface ReplicaSetInSchema extends ReplicaSet {
  /** The schema the replicas' tables are in, for reading them in a test. */
  schema: string;
}

/** `startReplicaSet` on a new random schema of the test database, dropped again by `close`. */
export async function startReplicaSetInSchema(
  admin: TestDatabaseAdmin,
  count: number,
  environment: Record<string, string> = {},
  environmentOf?: (index: number) => Record<string, string>,
): Promise<ReplicaSetInSchema> {
  const schema = randomSchemaName();
  const url = await admin.createSchema(schema);
  let set: ReplicaSet;
  try {
    set = await startReplicaSet(url, count, environment, environmentOf);
  } catch (error) {
    await admin.dropSchema(schema);
    throw error;
  }
  return {
    ...set,
    // `replicas` is replaced in place by `restart`: read it from the set, not a copy.
    get replicas() {
      return set.replicas;
    },
    schema,
    close: async () => {
      await set.close();
      await admin.dropSchema(schema);
    },
  };
}

/** Resolves once the agent service at `agentUrl` says on `GET /` that its NATS gateway is connected. */
export async function waitForNats(agentUrl: string): Promise<void> {
  await waitUntil(`the replica at ${agentUrl} to say nats: connected`, async () => ((await requestJson(`${agentUrl}/`)).body.nats === 'connected' ? true : undefined), { timeoutMs: 20_000, intervalMs: 100 });
}
