import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { entryPath } from './folder-handles.js';
import type { DiskQuota } from './disk-quota.js';
import { SandboxToolError } from './sandbox-tool-error.js';
import { toToolError } from './text-files.js';
import { normalizeWorkspacePath, withPathBeneath } from './workspace-paths.js';
import { type WorkspaceRoot, withWorkspaceRoot } from './workspace-root.js';

export interface WriteFileRequest {
  root: WorkspaceRoot;
  path: string;
  content: string;
  /** A workspace without write access refuses before touching anything. */
  readOnly?: boolean;
  /** The account's disk quota: a write that would go past it is refused. */
  diskQuota?: DiskQuota;
}

/**
 * Checked with the target's parent folder already open, just before the write: refuses (by
 * throwing) a write of `bytes` that would replace the entry at `entry` (a path lstat can read
 * without following a final symlink) and go past a quota.
 */
export type RoomCheck = (entry: string, bytes: number, relativePath: string) => Promise<void>;

export interface WriteFileResult {
  path: string;
  bytes: number;
}

/** Refusal shared by write and edit in a read-only workspace. */
export function readOnlyError(toolName: string): SandboxToolError {
  return new SandboxToolError('read-only', `This workspace is read-only; ${toolName} is not allowed.`);
}

/** O_NOFOLLOW: a symlink is refused by the kernel (and then followed by hand, inside the root); O_NONBLOCK: a FIFO cannot hang the open. */
const writeFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Create or replace a file beneath an open root, creating its folders, with no window
 * between the path check and the open (see withPathBeneath). Returns the normalized path.
 */
export async function writeFileBeneath(root: FileHandle, requested: string, content: string | Buffer, checkRoom?: RoomCheck): Promise<string> {
  const { relativePath } = normalizeWorkspacePath(requested);
  if (relativePath === '.') throw new SandboxToolError('not-a-file', 'The workspace root is a folder, not a file.');
  try {
    await withPathBeneath(
      root,
      requested,
      async (target) => {
        if (target.name === undefined) throw new SandboxToolError('not-a-file', `"${relativePath}" is a folder, not a file.`);
        await checkRoom?.(entryPath(target.folder, target.name), Buffer.byteLength(content), relativePath);
        const handle = await open(entryPath(target.folder, target.name), writeFlags, 0o644);
        try {
          if (!(await handle.stat()).isFile()) throw new SandboxToolError('not-a-file', `"${relativePath}" is not a regular file.`);
          await handle.writeFile(content);
        } finally {
          await handle.close();
        }
      },
      { createFolders: true },
    );
  } catch (error) {
    throw toToolError(error, relativePath);
  }
  return relativePath;
}

/** Write a file inside a workspace, creating its folders (and the workspace folder). */
export async function writeWorkspaceFile(request: WriteFileRequest): Promise<WriteFileResult> {
  if (request.readOnly) throw readOnlyError('write');
  const quota = request.diskQuota;
  const checkRoom: RoomCheck | undefined = quota && ((entry, bytes, relativePath) => quota.assertRoomFor(entry, bytes, relativePath));
  const written = await withWorkspaceRoot(request.root, (root) => writeFileBeneath(root, request.path, request.content, checkRoom), true);
  return { path: written, bytes: Buffer.byteLength(request.content, 'utf8') };
}
