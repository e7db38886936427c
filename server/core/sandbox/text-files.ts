import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { entryPath } from './folder-handles.js';
import type { PathTarget } from './workspace-paths.js';
import { normalizeWorkspacePath, withPathBeneath } from './workspace-paths.js';
import { SandboxToolError } from './sandbox-tool-error.js';

/** Files larger than this are not loaded into the service's memory by read, edit or grep. */
export const maxTextFileBytes = 10 * 1024 * 1024;

/** A NUL byte in the first 8000 bytes is how git and grep tell binary from text. */
export function looksBinary(buffer: Buffer): boolean {
  return buffer.subarray(0, 8000).includes(0);
}

/** Turn a file-system error into a tool error that names the workspace path, not the host path. */
export function toToolError(error: unknown, relativePath: string): unknown {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT':
      return new SandboxToolError('not-found', `"${relativePath}" does not exist.`);
    case 'ENOTDIR':
      return new SandboxToolError('not-found', `"${relativePath}" does not exist (a part of the path is a file, not a folder).`);
    case 'EISDIR':
      return new SandboxToolError('not-a-file', `"${relativePath}" is a folder, not a file.`);
    case 'ELOOP':
      return new SandboxToolError('path-outside-workspace', `"${relativePath}" is a symbolic link; it is not followed.`);
    case 'EACCES':
    case 'EPERM':
      return new SandboxToolError('invalid-input', `"${relativePath}" cannot be accessed (permission denied).`);
    default:
      return error;
  }
}

/**
 * Flags for opening a file to read: O_NOFOLLOW refuses a symlink (the walk then follows it by
 * hand, inside the root), O_NONBLOCK keeps a FIFO made by bash from blocking the open.
 */
export const readFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Open the target of a walk for reading; a folder reached as a whole is opened again by fd. */
export async function openForReading(target: PathTarget): Promise<FileHandle> {
  // `/proc/self/fd/N` is itself a (kernel) link to exactly the open folder: following it is safe.
  if (target.name === undefined) return open(`/proc/self/fd/${target.folder.fd}`, readFlags & ~constants.O_NOFOLLOW);
  return open(entryPath(target.folder, target.name), readFlags);
}

/** Read an open file as text for read, edit or grep, refusing folders, huge files and binary files. */
export async function readTextFromHandle(handle: FileHandle, relativePath: string): Promise<Buffer> {
  const stats = await handle.stat();
  if (!stats.isFile()) throw new SandboxToolError('not-a-file', `"${relativePath}" is not a regular file.`);
  if (stats.size > maxTextFileBytes) {
    throw new SandboxToolError('too-large', `"${relativePath}" is ${stats.size} bytes, more than the ${maxTextFileBytes} bytes the file tools load; use grep or bash instead.`);
  }
  // Read at most one byte past the cap: the file may grow between the stat and the read.
  const buffer = Buffer.alloc(Math.min(stats.size, maxTextFileBytes) + 1);
  let length = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0 || length + bytesRead >= buffer.length) {
      length += bytesRead;
      break;
    }
    length += bytesRead;
  }
  if (length > maxTextFileBytes) throw new SandboxToolError('too-large', `"${relativePath}" is more than the ${maxTextFileBytes} bytes the file tools load; use grep or bash instead.`);
  const content = buffer.subarray(0, length);
  if (looksBinary(content)) throw new SandboxToolError('binary-file', `"${relativePath}" looks like a binary file; the file tools read text only.`);
  return content;
}

/** Load a text file beneath an open root, race-free (see withPathBeneath). */
export async function loadTextFileBeneath(root: FileHandle, requested: string): Promise<{ relativePath: string; text: string }> {
  const { relativePath } = normalizeWorkspacePath(requested);
  try {
    return await withPathBeneath(root, requested, async (target) => {
      const handle = await openForReading(target);
      try {
        return { relativePath, text: (await readTextFromHandle(handle, relativePath)).toString('utf8') };
      } finally {
        await handle.close();
      }
    });
  } catch (error) {
    throw toToolError(error, relativePath);
  }
}

/** Split text into lines, not counting the empty string after a final newline. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Cut a string to at most `maxBytes` of UTF-8 without leaving half a character. */
export function truncateUtf8(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= maxBytes) return { text, truncated: false };
  return { text: buffer.subarray(0, maxBytes).toString('utf8').replace(/\uFFFD+$/, ''), truncated: true };
}
