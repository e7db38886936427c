import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { closeAll, errorCode, openChildFolder, symlinkTarget } from './folder-handles.js';
import { SandboxToolError } from './sandbox-tool-error.js';

/** A model-given path, checked and split, before anything on disk is looked at. */
export interface NormalizedPath {
  /** Plain names, no `.`, `..` or empty ones; empty for the root itself. */
  segments: string[];
  /** The path relative to the workspace root, with `/` separators (`.` for the root), for messages and results. */
  relativePath: string;
}

/** Refuse NUL, absolute paths and `..` that climbs out; fold `a/../b` and `./a`. */
export function normalizeWorkspacePath(requested: string): NormalizedPath {
  if (requested.includes('\0')) throw new SandboxToolError('invalid-input', 'The path contains a NUL character.');
  if (path.posix.isAbsolute(requested) || path.isAbsolute(requested)) {
    throw new SandboxToolError('path-outside-workspace', `"${requested}" is an absolute path; give a path relative to the workspace root (for example "src/index.ts").`);
  }
  const normalized = path.posix.normalize(requested.replaceAll('\\', '/')).replace(/\/+$/, '');
  if (normalized === '..' || normalized.startsWith('../')) {
    throw new SandboxToolError('path-outside-workspace', `"${requested}" leads outside the workspace; paths must stay inside the workspace root.`);
  }
  if (normalized === '.' || normalized === '') return { segments: [], relativePath: '.' };
  return { segments: normalized.split('/'), relativePath: normalized };
}

/** The final step of a walk: the folder that holds the target, open, and the target's name in it. */
export interface PathTarget {
  /** Open only while the operation runs. */
  folder: FileHandle;
  /** Undefined when the path names a folder reached as a whole (the root, or a link to a folder). */
  name: string | undefined;
  relativePath: string;
}

export interface WalkOptions {
  /** Make missing folders on the way (write, upload). */
  createFolders?: boolean;
  /** Follow a symlink at the last component (default true; delete removes the link itself). */
  followFinalLink?: boolean;
}

/** Symlinks followed by hand in one walk before it is called a loop (as the kernel's 40). */
const maxLinkHops = 40;

function outsideThroughLink(relativePath: string): SandboxToolError {
  return new SandboxToolError('path-outside-workspace', `"${relativePath}" goes through a symbolic link that leads outside the workspace; it is not followed.`);
}

/**
 * Reach a path beneath an open workspace root and run `operation` on it, without a window
 * between check and use: every component is opened relative to the folder fd before it with
 * O_NOFOLLOW, so a symlink swapped in at any moment is seen as a symlink and never followed
 * by the kernel. Symlinks that stay inside the root are resolved here by hand, one hop at a
 * time on folder fds; `..` in a link pops back to an already open folder, never below the
 * root. Absolute link targets are refused: they name host paths (or, from bash, sandbox
 * paths), not workspace paths.
 *
 * The operation opens its target with O_NOFOLLOW (or otherwise refuses a symlink) and fails
 * with ELOOP or ENOTDIR when the target is a symlink; the walk then follows that link and
 * calls the operation again on what it leads to.
 */
export async function withPathBeneath<T>(root: FileHandle, requested: string, operation: (target: PathTarget) => Promise<T>, options: WalkOptions = {}): Promise<T> {
  const { segments, relativePath } = normalizeWorkspacePath(requested);
  const folders: FileHandle[] = [root];
  const pending = [...segments];
  let hops = 0;
  const followLink = async (folder: FileHandle, name: string, error: unknown): Promise<void> => {
    const target = await symlinkTarget(folder, name);
    if (target === undefined) throw error;
    if (path.posix.isAbsolute(target)) throw outsideThroughLink(relativePath);
    hops += 1;
    if (hops > maxLinkHops) throw new SandboxToolError('path-outside-workspace', `"${relativePath}" goes through a symbolic link loop.`);
    pending.unshift(...target.split('/').filter((segment) => segment !== '' && segment !== '.'));
  };
  try {
    for (;;) {
      const folder = folders.at(-1) as FileHandle;
      const name = pending.shift();
      if (name === undefined) return await operation({ folder, name: undefined, relativePath });
      if (name === '..') {
        if (folders.length === 1) throw outsideThroughLink(relativePath);
        await (folders.pop() as FileHandle).close();
        continue;
      }
      if (pending.length === 0) {
        try {
          return await operation({ folder, name, relativePath });
        } catch (error) {
          const code = errorCode(error);
          if (options.followFinalLink === false || (code !== 'ELOOP' && code !== 'ENOTDIR')) throw error;
          await followLink(folder, name, error);
          continue;
        }
      }
      try {
        folders.push(await openChildFolder(folder, name, options.createFolders ?? false));
      } catch (error) {
        const code = errorCode(error);
        if (code !== 'ENOTDIR' && code !== 'ELOOP') throw error;
        await followLink(folder, name, error);
      }
    }
  } finally {
    await closeAll(folders.slice(1));
  }
}
