import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { closeAll, errorCode, openChildFolder, openTrustedFolder, symlinkTarget } from './folder-handles.js';
import { SandboxToolError } from './sandbox-tool-error.js';

/**
 * Where a workspace lives: a folder the service owns (the account's folder in the bucket)
 * and the workspace's path below it, which the account's own files and bash calls can change.
 */
export interface WorkspaceLocation {
  /** Host folder owned by the service; its last component must not be a symlink. */
  base: string;
  /** Relative path of the workspace under `base` (`.` for `base` itself). */
  path: string;
}

/** A workspace root: a host folder trusted as a whole (tests, tools built on a plain folder), or a location. */
export type WorkspaceRoot = string | WorkspaceLocation;

function locationOf(root: WorkspaceRoot): WorkspaceLocation {
  return typeof root === 'string' ? { base: root, path: '.' } : root;
}

/** The host path of a root, for logs and for running bash without bubblewrap; never opened by name for file access. */
export function workspaceHostPath(root: WorkspaceRoot): string {
  const location = locationOf(root);
  return path.join(location.base, location.path);
}

/**
 * Open a workspace root folder, reached from its base one component at a time with
 * O_NOFOLLOW: a symlink anywhere in the workspace path (made, say, by a bash call in another
 * workspace whose folder contains this one) is refused, not followed, so the root is always
 * a real folder under the base. The caller owns the handle and closes it. With `create`,
 * missing folders are made (a sandboxed workspace that was never written yet).
 */
export async function openWorkspaceRoot(root: WorkspaceRoot, create = false): Promise<FileHandle> {
  const location = locationOf(root);
  const segments = location.path.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) throw new SandboxToolError('path-outside-workspace', 'The workspace path leads outside the bucket.');
  let current: FileHandle;
  try {
    current = await openTrustedFolder(location.base, create);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') throw new SandboxToolError('not-found', 'The workspace folder does not exist yet; nothing has been written to it.');
    throw error;
  }
  for (const name of segments) {
    try {
      const next = await openChildFolder(current, name, create);
      await current.close();
      current = next;
    } catch (error) {
      const code = errorCode(error);
      const isLink = code === 'ENOTDIR' && (await symlinkTarget(current, name).catch(() => undefined)) !== undefined;
      await closeAll([current]);
      if (isLink) {
        throw new SandboxToolError('path-outside-workspace', `The workspace folder "${location.path}" goes through a symbolic link ("${name}"); a workspace must be a real folder in the bucket, so it is not used.`);
      }
      if (code === 'ENOENT') throw new SandboxToolError('not-found', 'The workspace folder does not exist yet; nothing has been written to it.');
      if (code === 'ENOTDIR') throw new SandboxToolError('not-found', `The workspace folder "${location.path}" is a file, not a folder.`);
      throw error;
    }
  }
  return current;
}

/** Run `body` with the workspace root open, and close it afterwards. */
export async function withWorkspaceRoot<T>(root: WorkspaceRoot, body: (folder: FileHandle) => Promise<T>, create = false): Promise<T> {
  const folder = await openWorkspaceRoot(root, create);
  try {
    return await body(folder);
  } finally {
    await folder.close();
  }
}
