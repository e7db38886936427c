import { constants } from 'node:fs';
import { type FileHandle, mkdir, open, readlink } from 'node:fs/promises';

/**
 * Race-free steps on open folders. Node has no openat(2), but on Linux
 * `/proc/self/fd/<fd>/<name>` names the entry `name` of exactly the folder the fd holds:
 * the fd part is resolved by the kernel, not by looking the folder's path up again, so a
 * folder renamed or swapped for a symlink after it was opened changes nothing. With
 * O_NOFOLLOW on the one remaining component, no symlink is ever followed.
 */

/** Flags for an intermediate folder: a symlink fails with ENOTDIR, a file with ENOTDIR. */
const folderFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** The entry `name` of an open folder, as a path the kernel resolves through the fd. */
export function entryPath(folder: FileHandle, name: string): string {
  return `/proc/self/fd/${folder.fd}/${name}`;
}

/**
 * Open a trusted host folder (the account's folder in the bucket, a test's temporary
 * folder) whose last component must not be a symlink; the components above it belong to the
 * service. With `create`, the folder is made first.
 */
export async function openTrustedFolder(hostPath: string, create: boolean): Promise<FileHandle> {
  if (create) await mkdir(hostPath, { recursive: true, mode: 0o755 });
  return open(hostPath, folderFlags);
}

/** Open the child folder `name` of `folder`, without following a symlink; optionally create it. */
export async function openChildFolder(folder: FileHandle, name: string, create: boolean): Promise<FileHandle> {
  try {
    return await open(entryPath(folder, name), folderFlags);
  } catch (error) {
    if (!create || errorCode(error) !== 'ENOENT') throw error;
  }
  // mkdir never follows a symlink at its last component: a link made meanwhile is EEXIST,
  // and the open below then refuses it.
  await mkdir(entryPath(folder, name), { mode: 0o755 }).catch((error: unknown) => {
    if (errorCode(error) !== 'EEXIST') throw error;
  });
  return open(entryPath(folder, name), folderFlags);
}

/** The target of the symlink `name` in `folder`, or undefined when it is not a symlink (any more). */
export async function symlinkTarget(folder: FileHandle, name: string): Promise<string | undefined> {
  try {
    return await readlink(entryPath(folder, name));
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EINVAL' || code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Close handles without letting one failure hide the error that is already on its way. */
export async function closeAll(handles: Iterable<FileHandle>): Promise<void> {
  await Promise.all([...handles].map((handle) => handle.close().catch(() => undefined)));
}
