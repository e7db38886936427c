import { processArguments, stopDetachedService } from '../deploy/detached-service.js';
import { isProcessAlive, terminateProcess, waitForExit } from '../deploy/process-control.js';
import { postmasterPid, stopLocalPostgres } from './local-postgres.js';
import { clusterReplicaFolder, removeClusterState, type ClusterPaths, type ClusterState } from './cluster-state.js';

/** One process `cluster down` stopped (or found gone). */
export interface StoppedPart {
  /** `replica 2`, `host`, `nats 1`, `postgres`. */
  part: string;
  pid: number;
  /** False when it was no longer running (or the pid now belongs to another process). */
  wasRunning: boolean;
}

/** Whether `pid` is alive and its command line has an argument containing `needle` (a folder of this cluster). */
export async function processMentions(pid: number, needle: string): Promise<boolean> {
  const args = await processArguments(pid);
  return args !== undefined && args.some((arg) => arg.includes(needle));
}

/** Every pid the state records, with what it is. */
export function recordedProcesses(state: ClusterState): { part: string; pid: number }[] {
  return [
    ...state.replicas.map((replica) => ({ part: `replica ${replica.index}`, pid: replica.pid })),
    ...(state.host ? [{ part: 'host', pid: state.host.pid }] : []),
    ...(state.nats?.pids ?? []).map((pid, index) => ({ part: `nats ${index + 1}`, pid })),
    ...(state.database ? [{ part: 'postgres', pid: state.database.pid }] : []),
  ];
}

/** Whether the recorded process is still that process: alive, and started on this cluster's folder. */
export async function isClusterProcess(paths: ClusterPaths, part: string, pid: number): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (part.startsWith('replica')) return processMentions(pid, paths.root);
  if (part === 'host') return processMentions(pid, paths.root);
  if (part.startsWith('nats')) return processMentions(pid, paths.hostFolder);
  return processMentions(pid, paths.postgresFolder);
}

async function terminate(pid: number, timeoutMs: number): Promise<void> {
  await terminateProcess(pid, timeoutMs).catch(() => undefined);
}

/**
 * Stops what the state records, each by its pid after checking it is still that process:
 * the replicas first (they drain their turns and let go of NATS and the database), then the
 * host (it stops the fixtures and its NATS servers), any NATS server still running, and
 * PostgreSQL last. Removes the state file.
 */
export async function stopCluster(paths: ClusterPaths, state: ClusterState, options: { timeoutMs: number }): Promise<StoppedPart[]> {
  const stopped: StoppedPart[] = [];
  const replicaResults = await Promise.all(
    state.replicas.map(async (replica) => ({ replica, result: await stopDetachedService(clusterReplicaFolder(paths, replica.index), options.timeoutMs) })),
  );
  for (const { replica, result } of replicaResults) stopped.push({ part: `replica ${replica.index}`, pid: replica.pid, wasRunning: result !== undefined });

  // Looked at before the host stops them, to report which were running.
  const natsPids = state.nats?.pids ?? [];
  const natsRunning = await Promise.all(natsPids.map((pid) => isClusterProcess(paths, 'nats', pid)));
  if (state.host) {
    const running = await isClusterProcess(paths, 'host', state.host.pid);
    if (running) await terminate(state.host.pid, options.timeoutMs);
    stopped.push({ part: 'host', pid: state.host.pid, wasRunning: running });
  }
  // The host stops its NATS servers; one it could not stop (the host was killed) is stopped here.
  for (const [index, pid] of natsPids.entries()) {
    if (await isClusterProcess(paths, 'nats', pid)) await terminate(pid, options.timeoutMs);
    stopped.push({ part: `nats ${index + 1}`, pid, wasRunning: natsRunning[index]! });
  }

  if (state.database) {
    const pid = state.database.pid;
    const running = (await postmasterPid(paths.postgresFolder)) === pid && (await isClusterProcess(paths, 'postgres', pid));
    if (running) {
      await stopLocalPostgres(paths.postgresFolder).catch(async () => {
        // pg_ctl could not stop it (its folder changed hands?): a fast shutdown by signal instead.
        process.kill(pid, 'SIGINT');
      });
      if (!(await waitForExit(pid, options.timeoutMs)) && isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    stopped.push({ part: 'postgres', pid, wasRunning: running });
  }
  await removeClusterState(paths);
  return stopped;
}
