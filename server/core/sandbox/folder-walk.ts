import { type FileHandle, lstat, opendir, rmdir, unlink } from 'node:fs/promises';
import { closeAll, entryPath, errorCode, openChildFolder } from './folder-handles.js';

/**
 * Visit every regular file under an open folder, with the folder that holds it open and its
 * `/`-separated path relative to the start. Each subfolder is opened from its parent's fd
 * with O_NOFOLLOW before it is read, so a folder swapped for a symlink during the walk is
 * skipped, never listed through. Symlinks are not visited (as a glob that does not follow
 * links). Entries are visited folder by folder, names sorted.
 */
export async function walkFilesBeneath(start: FileHandle, visit: (folder: FileHandle, name: string, relativePath: string) => Promise<void> | void): Promise<void> {
  const walk = async (folder: FileHandle, prefix: string): Promise<void> => {
    const files: string[] = [];
    const subfolders: string[] = [];
    for await (const entry of await opendir(`/proc/self/fd/${folder.fd}`)) {
      if (entry.isFile()) files.push(entry.name);
      else if (entry.isDirectory()) subfolders.push(entry.name);
    }
    for (const name of files.sort()) await visit(folder, name, prefix + name);
    for (const name of subfolders.sort()) {
      let child: FileHandle;
      try {
        child = await openChildFolder(folder, name, false);
      } catch (error) {
        const code = errorCode(error);
        // Gone, swapped for a symlink or a file, or unreadable since it was listed: skipped.
        if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EACCES') continue;
        throw error;
      }
      try {
        await walk(child, `${prefix}${name}/`);
      } finally {
        await closeAll([child]);
      }
    }
  };
  await walk(start, '');
}

/** Paths of every regular file under an open folder, relative to it (see walkFilesBeneath). */
export async function listFilesBeneath(start: FileHandle): Promise<string[]> {
  const files: string[] = [];
  await walkFilesBeneath(start, (_folder, _name, relativePath) => {
    files.push(relativePath);
  });
  return files;
}

/**
 * Remove the entry `name` of an open folder: a file or symlink is unlinked (a link is never
 * followed), a folder is emptied through its own fd, then removed. A folder swapped for a
 * symlink meanwhile is unlinked as the link it now is.
 */
export async function removeEntryBeneath(folder: FileHandle, name: string): Promise<void> {
  const stats = await lstat(entryPath(folder, name));
  if (!stats.isDirectory()) return unlink(entryPath(folder, name));
  let child: FileHandle;
  try {
    child = await openChildFolder(folder, name, false);
  } catch (error) {
    if (errorCode(error) === 'ENOTDIR') return unlink(entryPath(folder, name));
    throw error;
  }
  try {
    const names: string[] = [];
    for await (const entry of await opendir(`/proc/self/fd/${child.fd}`)) names.push(entry.name);
    for (const entry of names) {
      await removeEntryBeneath(child, entry).catch((error: unknown) => {
        if (errorCode(error) !== 'ENOENT') throw error;
      });
    }
  } finally {
    await closeAll([child]);
  }
  await rmdir(entryPath(folder, name));
}
