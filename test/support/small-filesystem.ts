import { execa } from 'execa';
import { mkdtemp, open, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallFilesystem {
  path: string;
  /** Unmount and remove the mount point (also after a failed test). */
  remove(): Promise<void>;
}

/**
 * A tmpfs of `size` (mount's syntax: `4m`) mounted on a fresh temporary folder, for tests
 * that fill a disk. Needs root (or CAP_SYS_ADMIN); fails with a message that says so.
 */
export async function mountSmallFilesystem(size: string): Promise<SmallFilesystem> {
  const path = await mkdtemp(join(tmpdir(), 'harness-small-fs-'));
  const mounted = await execa('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', path], { reject: false });
  if (mounted.exitCode !== 0) {
    await rm(path, { recursive: true, force: true });
    throw new Error(
      `This test fills a small filesystem and needs to mount one: \`mount -t tmpfs -o size=${size} tmpfs <folder>\` failed (${mounted.stderr || mounted.shortMessage}). Run it as root (or with CAP_SYS_ADMIN), as .ci/run does.`,
    );
  }
  return {
    path,
    remove: async () => {
      const unmounted = await execa('umount', [path], { reject: false });
      // Lazily if something still holds it open, so the mount never outlives the test.
      if (unmounted.exitCode !== 0) await execa('umount', ['-l', path], { reject: false });
      await rm(path, { recursive: true, force: true });
    },
  };
}

/** Fill the filesystem holding `folder` to the last byte with one file; returns how to free it. */
export async function fillUp(folder: string): Promise<{ bytes: number; free(): Promise<void> }> {
  const path = join(folder, 'filler');
  const file = await open(path, 'w');
  let bytes = 0;
  try {
    for (const chunk of [1024 * 1024, 64 * 1024, 4096, 256, 16, 1]) {
      const buffer = Buffer.alloc(chunk, 120);
      for (;;) {
        try {
          const { bytesWritten } = await file.write(buffer, 0, chunk);
          bytes += bytesWritten;
          if (bytesWritten < chunk) break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    await file.close();
  }
  return { bytes, free: () => unlink(path) };
}
