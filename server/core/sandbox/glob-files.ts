import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { openChildFolder } from './folder-handles.js';
import path from 'node:path';
import { listFilesBeneath } from './folder-walk.js';
import { compileGlob } from './glob-pattern.js';
import { SandboxToolError } from './sandbox-tool-error.js';
import { toToolError } from './text-files.js';
import { normalizeWorkspacePath, withPathBeneath } from './workspace-paths.js';
import { type WorkspaceRoot, withWorkspaceRoot } from './workspace-root.js';

export interface GlobFilesRequest {
  root: WorkspaceRoot;
  /** A glob relative to `path` (default the root), e.g. `src/**\/*.ts`. */
  pattern: string;
  /** Folder to search from, relative to the root. */
  path?: string;
  /** Cap on the number of paths returned (default 1000). */
  maxResults?: number;
}

export interface GlobFilesResult {
  /** Matching files relative to the workspace root, sorted. */
  files: string[];
  truncated: boolean;
}

/** Refuse glob patterns that could reach outside the folder they start from. */
export function checkRelativePattern(pattern: string, what: string): void {
  if (pattern === '') throw new SandboxToolError('invalid-input', `${what} must not be empty.`);
  if (path.isAbsolute(pattern) || pattern.startsWith('~')) {
    throw new SandboxToolError('path-outside-workspace', `${what} "${pattern}" is absolute; give a pattern relative to the workspace.`);
  }
  if (pattern.split(/[\\/]/).some((segment) => segment === '..')) {
    throw new SandboxToolError('path-outside-workspace', `${what} "${pattern}" contains ".."; patterns must stay inside the workspace.`);
  }
}

/**
 * The files under a folder of an open root that match a pattern, relative to the root,
 * sorted. The folder is reached race-free and walked on fds (see listFilesBeneath).
 */
export async function listMatchingFiles(root: FileHandle, folder: string, pattern: string): Promise<string[]> {
  const matcher = compileGlob(pattern);
  const { relativePath } = normalizeWorkspacePath(folder);
  try {
    const found = await withPathBeneath(root, folder, async (target) => {
      // A file fails with ENOTDIR (refused below); a symlink too, and the walk then follows it inside the root.
      const start = target.name === undefined ? await open(`/proc/self/fd/${target.folder.fd}`, constants.O_RDONLY | constants.O_DIRECTORY) : await openChildFolder(target.folder, target.name, false);
      try {
        return await listFilesBeneath(start);
      } finally {
        await start.close();
      }
    });
    return found
      .filter((file) => matcher.matches(file))
      .map((file) => (relativePath === '.' ? file : `${relativePath}/${file}`))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') throw new SandboxToolError('not-a-file', `"${relativePath}" is not a folder.`);
    throw toToolError(error, relativePath);
  }
}

/** Find files in a workspace by glob pattern. */
export async function globWorkspaceFiles(request: GlobFilesRequest): Promise<GlobFilesResult> {
  checkRelativePattern(request.pattern, 'pattern');
  const maxResults = request.maxResults ?? 1000;
  const files = await withWorkspaceRoot(request.root, (root) => listMatchingFiles(root, request.path ?? '.', request.pattern));
  return { files: files.slice(0, maxResults), truncated: files.length > maxResults };
}
