import { open } from 'node:fs/promises';

/** The last `lines` lines of a text (without a trailing empty line). */
export function lastLines(text: string, lines: number): string {
  const all = text.replace(/\n$/, '').split('\n');
  return all.slice(Math.max(0, all.length - lines)).join('\n');
}

/** The last `lines` lines of a file, reading at most its last `maxBytes`; '' when it does not exist. */
export async function readFileTail(path: string, lines: number, maxBytes = 256 * 1024): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return lastLines(buffer.toString('utf8'), lines);
  } finally {
    await handle.close();
  }
}
