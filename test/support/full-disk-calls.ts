import { ftruncateSync, writeSync } from 'node:fs';
import type { LogFileCalls } from '../../server/core/storage/write-ahead-log.js';

/**
 * Log system calls on a disk that can be filled: once `fill(room)` is called, writes put at
 * most `room` more bytes on disk (a short write), then fail with ENOSPC, as a full disk
 * does; `free()` gives the space back. `failTruncate` makes cutting a segment back fail too.
 */
export function fillableDisk(): { calls: LogFileCalls; fill(room: number): void; free(): void; failTruncate: boolean } {
  let room = Number.POSITIVE_INFINITY;
  const disk = {
    failTruncate: false,
    fill: (bytes: number) => {
      room = bytes;
    },
    free: () => {
      room = Number.POSITIVE_INFINITY;
    },
    calls: {
      write: (fd: number, bytes: Buffer, offset: number, length: number) => {
        if (room <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        const written = writeSync(fd, bytes, offset, Math.min(length, room));
        room -= written;
        return written;
      },
      truncate: (fd: number, length: number) => {
        if (disk.failTruncate) throw Object.assign(new Error('EIO: i/o error, ftruncate'), { code: 'EIO' });
        ftruncateSync(fd, length);
      },
    },
  };
  return disk;
}
