import type { CgroupOutcome } from './sandbox-cgroups.js';
import { formatBytes, type SandboxResourceLimits } from './sandbox-settings.js';

/** Which limit stopped or hurt a bash call. */
export type BashLimitKind = 'aborted' | 'disk-quota' | 'timeout' | 'memory' | 'processes' | 'file-size' | 'cpu-time' | 'tmp-full';

/** A limit a call ran into, with the sentence the model reads. */
export interface BashLimitHit {
  kind: BashLimitKind;
  message: string;
}

/** What the runner saw of a finished call. */
export interface BashCallFacts {
  exitCode: number | null;
  signal: string | null;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  diskQuotaExceeded: boolean;
  cgroup?: CgroupOutcome;
  /** Whether memory was limited for the call as a whole (a cgroup) or per process (RLIMIT_DATA). */
  memoryByCgroup: boolean;
  resources: SandboxResourceLimits;
  timeoutMs: number;
  cpuSeconds: number;
  diskQuotaBytes?: number;
}

// Under bwrap a child killed by signal N makes bwrap exit 128 + N; bash does the same for its children.
const killedBy = (facts: BashCallFacts, signal: string, number: number) => facts.signal === signal || facts.exitCode === 128 + number;

/**
 * The limits a call hit, most decisive first. Read from the exit status, the cgroup's event
 * counters and the messages programs print when the kernel refuses them (EAGAIN on fork,
 * ENOSPC, ENOMEM, SIGXFSZ, SIGXCPU).
 */
export function bashLimitHits(facts: BashCallFacts): BashLimitHit[] {
  const { resources, stderr } = facts;
  const hits: BashLimitHit[] = [];
  if (facts.aborted) hits.push({ kind: 'aborted', message: 'bash was stopped because the run was cancelled; it and every process it started were killed.' });
  if (facts.diskQuotaExceeded && facts.diskQuotaBytes !== undefined) {
    hits.push({ kind: 'disk-quota', message: `bash was killed: the account's files went past its disk quota of ${formatBytes(facts.diskQuotaBytes)}. Delete files to make room.` });
  }
  if (facts.timedOut) hits.push({ kind: 'timeout', message: `The command timed out after ${facts.timeoutMs} ms; it and every process it started were killed.` });
  const memoryMessage = /Cannot allocate memory|MemoryError|[Oo]ut of memory|std::bad_alloc|memory exhausted/.test(stderr);
  if ((facts.cgroup?.memoryKills ?? 0) > 0) {
    hits.push({ kind: 'memory', message: `A process of this bash call was killed: the call went past its ${formatBytes(resources.memoryBytes)} memory limit.` });
  } else if (memoryMessage) {
    const scope = facts.memoryByCgroup ? 'the call' : 'one process';
    hits.push({ kind: 'memory', message: `A memory allocation was refused: ${scope} may use at most ${formatBytes(resources.memoryBytes)}.` });
  }
  if ((facts.cgroup?.processLimitHits ?? 0) > 0 || /fork: (retry: )?Resource temporarily unavailable|Resource temporarily unavailable.*fork|can't fork/.test(stderr)) {
    hits.push({ kind: 'processes', message: `A new process was refused: a bash call may run at most ${resources.maxProcesses} processes at once.` });
  }
  if (killedBy(facts, 'SIGXFSZ', 25) || /File size limit exceeded/.test(stderr)) {
    hits.push({ kind: 'file-size', message: `A write was stopped: one file may be at most ${formatBytes(resources.fileSizeBytes)}.` });
  }
  if (killedBy(facts, 'SIGXCPU', 24) || /CPU time limit exceeded/.test(stderr)) {
    hits.push({ kind: 'cpu-time', message: `A process was killed after ${facts.cpuSeconds} s of CPU time, the limit of one process.` });
  }
  if (/No space left on device/.test(stderr)) {
    hits.push({ kind: 'tmp-full', message: `A write failed with "No space left on device": /tmp and /dev/shm hold at most ${formatBytes(resources.tmpBytes)} each; write larger files in the working folder.` });
  }
  return hits;
}
