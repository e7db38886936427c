import { readFile, readdir } from 'node:fs/promises';

/**
 * Pids of live processes whose command line contains a marker. Reads /proc, which shows
 * processes in child pid namespaces too (bubblewrap's), under their host pids. Zombies are
 * not live: in a container nobody may reap them.
 */
export async function liveProcessesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const commandLine = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      const state = (await readFile(`/proc/${entry}/stat`, 'utf8')).split(') ')[1]?.[0];
      if (commandLine.includes(marker) && state !== 'Z') found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/** Whether a pid is a live (non-zombie) process. */
export async function isAlive(pid: number): Promise<boolean> {
  try {
    return (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}
