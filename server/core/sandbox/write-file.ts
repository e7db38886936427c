import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import type { DiskQuota } from './disk-quota.js';
import { resolveWorkspacePath } from './workspace-paths.js';
import { SandboxToolError } from './sandbox-tool-error.js';
import { toToolError } from './text-files.js';

export interface WriteFileRequest {
  root: string;
  path: string;
  content: string;
  /** A workspace without write access refuses before touching anything. */
  readOnly?: boolean;
  /** The account's disk quota: a write that would go past it is refused. */
  diskQuota?: DiskQuota;
}

export interface WriteFileResult {
  path: string;
  bytes: number;
}

/** Refusal shared by write and edit in a read-only workspace. */
export function readOnlyError(toolName: string): SandboxToolError {
  return new SandboxToolError('read-only', `This workspace is read-only; ${toolName} is not allowed.`);
}

/**
 * Write a file inside a workspace, creating its folders. The final open uses O_NOFOLLOW so
 * a symlink swapped in after the path check is not followed.
 */
export async function writeWorkspaceFile(request: WriteFileRequest): Promise<WriteFileResult> {
  if (request.readOnly) throw readOnlyError('write');
  const target = await resolveWorkspacePath(request.root, request.path);
  if (target.relativePath === '.') throw new SandboxToolError('not-a-file', 'The workspace root is a folder, not a file.');
  await request.diskQuota?.assertRoomFor(target.absolutePath, Buffer.byteLength(request.content, 'utf8'), target.relativePath);
  try {
    await mkdir(path.dirname(target.absolutePath), { recursive: true });
    const handle = await open(target.absolutePath, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
    try {
      await handle.writeFile(request.content, 'utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw toToolError(error, target.relativePath);
  }
  return { path: target.relativePath, bytes: Buffer.byteLength(request.content, 'utf8') };
}
