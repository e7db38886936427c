import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { startChild } from './bench-processes.js';

/** `url` with `search_path` set to `schema`: a service on it keeps its tables there. */
export function urlWithSchema(url: string, schema: string): string {
  const withSchema = new URL(url);
  withSchema.searchParams.set('options', `-c search_path=${schema}`);
  return withSchema.toString();
}

export interface Replica {
  accountUrl: string;
  agentUrl: string;
  child: ResultPromise;
}

/** `harness serve` processes that are one service: one PostgreSQL schema, the same secrets, one bucket folder. */
export interface ReplicaGroup {
  replicas: Replica[];
  /** CPU seconds (user + system) each replica's process has used so far. */
  cpuSeconds(): Promise<number[]>;
  close(): Promise<void>;
}

const adminSecret = 'bench-admin-secret-0123456789abcdefghijklmnop';
const encryptionSecret = 'bench-encryption-secret-0123456789abcdefghij';

/** Stops a child with SIGTERM, and with SIGKILL when it has not exited after `graceMilliseconds` (work left queued). */
export async function stopChild(child: ResultPromise, graceMilliseconds = 10_000): Promise<void> {
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMilliseconds);
  await child;
  clearTimeout(timer);
}

async function processCpuSeconds(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  try {
    // Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised name) are user and system time in clock ticks (100 a second on Linux).
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Starts `count` replicas on `databaseUrl`, one after another (the first migrates the schema). */
export async function startReplicaGroup(databaseUrl: string, count: number, environment: Record<string, string> = {}): Promise<ReplicaGroup> {
  const root = await mkdtemp(join(tmpdir(), 'harness-bench-replicas-'));
  const bucket = join(root, 'bucket');
  await mkdir(bucket);
  const replicas: Replica[] = [];
  const close = async () => {
    await Promise.allSettled(replicas.map((replica) => stopChild(replica.child)));
    await rm(root, { recursive: true, force: true });
  };
  try {
    for (let index = 0; index < count; index += 1) {
      const dataDir = join(root, `replica-${index}`);
      await mkdir(dataDir);
      const started = await startChild(['cli/main.ts', 'serve', '--account-port', '0', '--agent-port', '0', '--data-dir', dataDir, '--json'], {
        HARNESS_DATABASE_URL: databaseUrl,
        HARNESS_ADMIN_SECRET: adminSecret,
        HARNESS_CONFIG_ENCRYPTION_SECRET: encryptionSecret,
        HARNESS_BUCKET_DIR: bucket,
        HARNESS_LIMIT_TURNS_PER_MINUTE: '1000000',
        HARNESS_LIMIT_COMPLETIONS_PER_MINUTE: '1000000',
        HARNESS_LIMIT_CONCURRENT_TURNS: '1000',
        ...environment,
      });
      replicas.push({ accountUrl: started.ready.accountUrl!, agentUrl: started.ready.agentUrl!, child: started.child });
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { replicas, cpuSeconds: () => Promise.all(replicas.map((replica) => processCpuSeconds(replica.child.pid))), close };
}
