import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * Replace a file so that, once the promise resolves, the new content survives a power cut
 * or `kill -9`: write a temporary file in the same folder, fsync it, rename it over the
 * target (atomic on POSIX), then fsync the folder so the rename itself is on disk.
 * Readers see either the old or the new content, never a torn file. A failure (a full disk)
 * removes the temporary file: a retry must not find the disk fuller than before.
 */
export async function writeFileDurably(path: string, content: string | Uint8Array, mode = 0o600): Promise<void> {
  await replaceFile(path, content, mode);
  await syncFolder(dirname(path));
}

/**
 * `writeFileDurably` without its last step: the new content is on disk and has replaced the
 * file atomically, but the rename is durable only once the folder is fsynced. For a caller
 * that replaces many files of one folder and syncs the folder once after them, before it
 * relies on any of them (the storage's checkpoint, before it deletes the log they replace).
 */
export async function replaceFile(path: string, content: string | Uint8Array, mode = 0o600): Promise<void> {
  const folder = dirname(path);
  const temporaryPath = join(folder, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const file = await open(temporaryPath, 'w', mode);
    try {
      await file.writeFile(content);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporaryPath, path);
  } catch (error) {
    await unlink(temporaryPath).catch(() => undefined);
    throw error;
  }
}

/** fsync a folder, so that entries created or renamed in it are durable. */
export async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Create a folder (and any missing parents) so that it survives a power cut: a new folder's
 * entry lives in its parent, which must be fsynced too, or files made durable inside it can
 * vanish with it. Parents that already existed are not synced.
 */
export async function makeFolderDurably(folder: string, mode = 0o700): Promise<void> {
  const target = resolve(folder);
  const firstCreated = await mkdir(target, { recursive: true, mode });
  if (firstCreated === undefined) return;
  const stop = dirname(resolve(firstCreated));
  const created: string[] = [];
  for (let current = target; current !== stop && current !== dirname(current); current = dirname(current)) created.push(current);
  // Deepest first: each created folder's entry is synced in its parent.
  for (const path of created) await syncFolder(dirname(path));
}
