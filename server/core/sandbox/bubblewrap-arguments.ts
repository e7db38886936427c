import { existsSync, lstatSync, readlinkSync } from 'node:fs';

/** Where the working folder appears inside the sandbox; also HOME there. */
export const sandboxWorkspaceFolder = '/workspace';

// On merged-/usr systems /bin, /lib... are symlinks into /usr: recreate them as symlinks.
const systemFolders = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64'];

// Only what programs need from /etc: the dynamic linker, users, name lookup, certificates.
// Not the whole of /etc, which can hold host secrets.
const etcEntries = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/hosts',
  '/etc/resolv.conf',
  '/etc/ssl',
  '/etc/ca-certificates',
];

function systemFolderArguments(): string[] {
  const result: string[] = [];
  for (const folder of systemFolders) {
    if (!existsSync(folder)) continue;
    if (lstatSync(folder).isSymbolicLink()) result.push('--symlink', readlinkSync(folder), folder);
    else result.push('--ro-bind', folder, folder);
  }
  return result;
}

export interface BubblewrapOptions {
  /** Host folder bound read-write at /workspace. */
  workingFolder: string;
  /** An fd (in bwrap) of the working folder, bound instead of the path; bwrap closes it. */
  workingFolderFd?: number;
  /** Share the host network; otherwise the sandbox has its own empty network namespace. */
  network: boolean;
  /** Size of /tmp and of /dev/shm, each a tmpfs: RAM, so never unbounded. Default 64 MiB. */
  tmpBytes?: number;
}

const defaultTmpBytes = 64 * 1024 * 1024;

/**
 * bwrap arguments for one bash call. Everything not bound here (the data folder, home,
 * /root, the rest of /etc) does not exist inside. The probe uses the same arguments, so a
 * container that cannot run them is caught at start.
 */
export function bubblewrapArguments(options: BubblewrapOptions): string[] {
  return [
    '--unshare-all',
    ...(options.network ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--cap-drop', 'ALL',
    ...systemFolderArguments(),
    ...etcEntries.flatMap((entry) => ['--ro-bind-try', entry, entry]),
    '--size', String(options.tmpBytes ?? defaultTmpBytes), '--tmpfs', '/tmp',
    '--proc', '/proc',
    // bwrap's /dev is itself an unsized tmpfs: make it read-only (device nodes still work)
    // and give /dev/shm, which programs do write, a sized tmpfs of its own.
    '--dev', '/dev',
    '--remount-ro', '/dev',
    '--size', String(options.tmpBytes ?? defaultTmpBytes), '--tmpfs', '/dev/shm',
    ...(options.workingFolderFd === undefined ? ['--bind', options.workingFolder] : ['--bind-fd', String(options.workingFolderFd)]), sandboxWorkspaceFolder,
    '--chdir', sandboxWorkspaceFolder,
  ];
}
