import { randomBytes } from 'node:crypto';
import { access, mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SandboxResourceLimits } from './sandbox-settings.js';

/**
 * Where per-call cgroups are made, when the service may make them. A cgroup is the only
 * limit on a call's processes and memory that holds for every process it starts together,
 * whoever the service runs as: RLIMIT_NPROC does not bind root, and rlimits are per process.
 */
export type CgroupSupport =
  | { available: true; version: 1 | 2; /** Parent folder per controller: `pids`, `memory` (the same folder under v2). */ parents: { pids: string; memory: string } }
  | { available: false; reason: string };

/** What a call's cgroup saw: read after the call, before the cgroup is removed. */
export interface CgroupOutcome {
  /** Processes the kernel killed because the call went past its memory limit. */
  memoryKills: number;
  /** Forks refused because the call was at its process limit. */
  processLimitHits: number;
}

/** The cgroup of one bash call. */
export interface CallCgroup {
  /** `cgroup.procs` files the call's first process writes its pid to before it execs bwrap. */
  procsFiles: string[];
  outcome(): Promise<CgroupOutcome>;
  /** Kill whatever is left in it and remove it. */
  remove(): Promise<void>;
}

const root = '/sys/fs/cgroup';
const leafPrefix = 'harness-call-';

async function exists(file: string): Promise<boolean> {
  return access(file).then(() => true, () => false);
}

async function readNumberField(file: string, field: string): Promise<number> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const line = text.split('\n').find((entry) => entry.startsWith(`${field} `));
  return line ? Number(line.split(' ')[1]) || 0 : 0;
}

async function enableControllers(folder: string): Promise<void> {
  const enabled = (await readFile(path.join(folder, 'cgroup.subtree_control'), 'utf8')).split(/\s+/);
  const missing = ['pids', 'memory'].filter((controller) => !enabled.includes(controller));
  if (missing.length > 0) await writeFile(path.join(folder, 'cgroup.subtree_control'), missing.map((controller) => `+${controller}`).join(' '));
}

async function ownCgroupPaths(): Promise<Map<string, string>> {
  const paths = new Map<string, string>();
  for (const line of (await readFile('/proc/self/cgroup', 'utf8')).trim().split('\n')) {
    const [, controllers = '', cgroupPath = '/'] = line.split(':');
    for (const controller of controllers === '' ? [''] : controllers.split(',')) paths.set(controller, cgroupPath);
  }
  return paths;
}

function limitWrites(version: 1 | 2, resources: SandboxResourceLimits): { controller: 'pids' | 'memory'; file: string; value: string; optional?: boolean }[] {
  const memory = String(resources.memoryBytes);
  if (version === 2) {
    return [
      { controller: 'pids', file: 'pids.max', value: String(resources.maxProcesses) },
      { controller: 'memory', file: 'memory.max', value: memory },
      // Swap would let a call go past its memory limit on a host that has swap.
      { controller: 'memory', file: 'memory.swap.max', value: '0', optional: true },
    ];
  }
  return [
    { controller: 'pids', file: 'pids.max', value: String(resources.maxProcesses) },
    { controller: 'memory', file: 'memory.limit_in_bytes', value: memory },
    { controller: 'memory', file: 'memory.memsw.limit_in_bytes', value: memory, optional: true },
  ];
}

async function killAndRemove(folder: string, version: 1 | 2): Promise<void> {
  if (!(await exists(folder))) return;
  for (let attempt = 0; attempt < 50; attempt += 1) {
    if (version === 2) await writeFile(path.join(folder, 'cgroup.kill'), '1').catch(() => undefined);
    else {
      const pids = (await readFile(path.join(folder, 'cgroup.procs'), 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    try {
      await rmdir(folder);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      // EBUSY: killed processes are still being torn down.
      await sleep(20);
    }
  }
}

/** Create the cgroup of one call, with its limits written. */
export async function createCallCgroup(support: Extract<CgroupSupport, { available: true }>, resources: SandboxResourceLimits): Promise<CallCgroup> {
  const name = `${leafPrefix}${randomBytes(8).toString('hex')}`;
  const folders = { pids: path.join(support.parents.pids, name), memory: path.join(support.parents.memory, name) };
  const distinct = [...new Set(Object.values(folders))];
  const remove = async () => {
    await Promise.all(distinct.map((folder) => killAndRemove(folder, support.version)));
  };
  try {
    for (const folder of distinct) await mkdir(folder);
    for (const entry of limitWrites(support.version, resources)) {
      const file = path.join(folders[entry.controller], entry.file);
      if (entry.optional && !(await exists(file))) continue;
      await writeFile(file, entry.value);
    }
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    procsFiles: distinct.map((folder) => path.join(folder, 'cgroup.procs')),
    outcome: async () => ({
      memoryKills: await readNumberField(path.join(folders.memory, support.version === 2 ? 'memory.events' : 'memory.oom_control'), 'oom_kill'),
      processLimitHits: await readNumberField(path.join(folders.pids, 'pids.events'), 'max'),
    }),
    remove,
  };
}

async function parentsFor(): Promise<{ version: 1 | 2; parents: { pids: string; memory: string } }> {
  if (await exists(path.join(root, 'cgroup.controllers'))) {
    // Pure cgroup v2. Leaves go under one folder beside the service's own cgroup tree: a
    // cgroup that holds processes cannot enable controllers for its children.
    const controllers = (await readFile(path.join(root, 'cgroup.controllers'), 'utf8')).split(/\s+/);
    for (const controller of ['pids', 'memory']) {
      if (!controllers.includes(controller)) throw new Error(`the cgroup v2 hierarchy has no ${controller} controller`);
    }
    const parent = path.join(root, 'harness-sandbox');
    await enableControllers(root);
    await mkdir(parent, { recursive: true });
    await enableControllers(parent);
    return { version: 2, parents: { pids: parent, memory: parent } };
  }
  // cgroup v1: one hierarchy per controller; leaves go under the service's own cgroup in
  // each, so whatever limits the service (a container's memory limit) also bounds them.
  const own = await ownCgroupPaths();
  const parents = { pids: '', memory: '' };
  for (const controller of ['pids', 'memory'] as const) {
    const mount = path.join(root, controller);
    if (!own.has(controller) || !(await exists(path.join(mount, 'cgroup.procs')))) throw new Error(`no cgroup v1 ${controller} hierarchy is mounted at ${mount}`);
    parents[controller] = path.join(mount, own.get(controller) ?? '/', 'harness-sandbox');
    await mkdir(parents[controller], { recursive: true });
  }
  return { version: 1, parents };
}

/**
 * Find where per-call cgroups can be made and try one: a container without a writable
 * cgroup filesystem, or a service that is not root, gets `available: false` and a reason.
 */
export async function probeCgroups(): Promise<CgroupSupport> {
  try {
    const found = await parentsFor();
    const support = { available: true as const, ...found };
    const trial = await createCallCgroup(support, { memoryBytes: 64 * 1024 * 1024, maxProcesses: 8, fileSizeBytes: 1024, tmpBytes: 1024 * 1024 });
    await trial.remove();
    return support;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { available: false, reason: `per-call cgroups cannot be made here (${detail})` };
  }
}
