import { readFile, stat } from 'node:fs/promises';
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

/** Load a text file for read, edit or grep, refusing folders, huge files and binary files. */
export async function loadTextFile(absolutePath: string, relativePath: string): Promise<string> {
  try {
    const stats = await stat(absolutePath);
    if (!stats.isFile()) throw new SandboxToolError('not-a-file', `"${relativePath}" is not a regular file.`);
    if (stats.size > maxTextFileBytes) {
      throw new SandboxToolError('too-large', `"${relativePath}" is ${stats.size} bytes, more than the ${maxTextFileBytes} bytes the file tools load; use grep or bash instead.`);
    }
    const buffer = await readFile(absolutePath);
    if (looksBinary(buffer)) throw new SandboxToolError('binary-file', `"${relativePath}" looks like a binary file; the file tools read text only.`);
    return buffer.toString('utf8');
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
