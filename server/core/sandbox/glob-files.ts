import { stat } from 'node:fs/promises';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { resolveWorkspacePath } from './workspace-paths.js';
import { SandboxToolError } from './sandbox-tool-error.js';
import { toToolError } from './text-files.js';

export interface GlobFilesRequest {
  root: string;
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

/** Resolve a folder argument and list the files under it that match a pattern, relative to the root. */
export async function listMatchingFiles(root: string, folder: string, pattern: string): Promise<string[]> {
  const base = await resolveWorkspacePath(root, folder);
  try {
    if (!(await stat(base.absolutePath)).isDirectory()) throw new SandboxToolError('not-a-file', `"${base.relativePath}" is not a folder.`);
  } catch (error) {
    throw toToolError(error, base.relativePath);
  }
  // Symlinks are not followed, so a link to /etc cannot make the crawl list files outside.
  const found = await glob(pattern, { cwd: base.absolutePath, dot: true, onlyFiles: true, followSymbolicLinks: false, expandDirectories: false });
  return found
    .map((file) => path.posix.normalize(base.relativePath === '.' ? file : `${base.relativePath}/${file}`))
    .sort();
}

/** Find files in a workspace by glob pattern. */
export async function globWorkspaceFiles(request: GlobFilesRequest): Promise<GlobFilesResult> {
  checkRelativePattern(request.pattern, 'pattern');
  const maxResults = request.maxResults ?? 1000;
  const files = await listMatchingFiles(request.root, request.path ?? '.', request.pattern);
  return { files: files.slice(0, maxResults), truncated: files.length > maxResults };
}
