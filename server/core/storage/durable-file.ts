import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replace a file so that, once the promise resolves, the new content survives a power cut
 * or `kill -9`: write a temporary file in the same folder, fsync it, rename it over the
 * target (atomic on POSIX), then fsync the folder so the rename itself is on disk.
 * Readers see either the old or the new content, never a torn file.
 */
export async function writeFileDurably(path: string, content: string | Uint8Array, mode = 0o600): Promise<void> {
  const folder = dirname(path);
  const temporaryPath = join(folder, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const file = await open(temporaryPath, 'w', mode);
  try {
    await file.writeFile(content);
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await rename(temporaryPath, path);
  } catch (error) {
    await unlink(temporaryPath).catch(() => undefined);
    throw error;
  }
  await syncFolder(folder);
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
