import type { FileHandle } from 'node:fs/promises';
import { checkRelativePattern, listMatchingFiles } from './glob-files.js';
import { searchLines } from './ripgrep-lines.js';
import { SandboxToolError } from './sandbox-tool-error.js';
import { openForReading, readTextFromHandle, toToolError } from './text-files.js';
import { normalizeWorkspacePath, withPathBeneath } from './workspace-paths.js';
import { type WorkspaceRoot, withWorkspaceRoot } from './workspace-root.js';

export interface GrepFilesRequest {
  root: WorkspaceRoot;
  /** A regular expression (ripgrep's syntax: no look-around or backreferences), matched line by line. */
  pattern: string;
  /** A file or folder relative to the root (default the root). */
  path?: string;
  /** Only search files matching this glob, relative to `path` (default every file). */
  glob?: string;
  ignoreCase?: boolean;
  /** Cap on the number of matches returned (default 200). */
  maxMatches?: number;
  /** The search is stopped past this (default 30 s). */
  timeoutMs?: number;
}

export interface GrepMatch {
  path: string;
  /** Line number, counting from 1. */
  line: number;
  /** The matching line, cut to 500 characters. */
  text: string;
}

export interface GrepFilesResult {
  matches: GrepMatch[];
  truncated: boolean;
  /** Files skipped because they are binary, too large or lead outside the workspace. */
  skippedFiles: number;
}

const maxLineCharacters = 500;
export const defaultGrepTimeoutMs = 30_000;

/** Whether the start path is one file (then only it is searched) or a folder. */
async function startIsFile(root: FileHandle, requested: string): Promise<boolean> {
  const { relativePath } = normalizeWorkspacePath(requested);
  try {
    return await withPathBeneath(root, requested, async (target) => {
      const handle = await openForReading(target);
      try {
        return (await handle.stat()).isFile();
      } finally {
        await handle.close();
      }
    });
  } catch (error) {
    throw toToolError(error, relativePath);
  }
}

/** Read one listed file for the search, through the same race-free walk as read. */
async function loadForSearch(root: FileHandle, relativePath: string): Promise<Buffer> {
  try {
    return await withPathBeneath(root, relativePath, async (target) => {
      const handle = await openForReading(target);
      try {
        return await readTextFromHandle(handle, relativePath);
      } finally {
        await handle.close();
      }
    });
  } catch (error) {
    throw toToolError(error, relativePath);
  }
}

/** Search text files in a workspace for lines matching a regular expression (ripgrep; see searchLines). */
export async function grepWorkspaceFiles(request: GrepFilesRequest): Promise<GrepFilesResult> {
  if (request.pattern.length > 1000) throw new SandboxToolError('invalid-input', 'pattern must be at most 1000 characters.');
  if (request.glob !== undefined) checkRelativePattern(request.glob, 'glob');
  const folder = request.path ?? '.';
  return withWorkspaceRoot(request.root, async (root) => {
    const files = (await startIsFile(root, folder)) ? [normalizeWorkspacePath(folder).relativePath] : await listMatchingFiles(root, folder, request.glob ?? '**/*');
    const result = await searchLines({
      pattern: request.pattern,
      ignoreCase: request.ignoreCase ?? false,
      sources: files.map((file) => ({ name: file, load: () => loadForSearch(root, file) })),
      maxMatches: request.maxMatches ?? 200,
      timeoutMs: request.timeoutMs ?? defaultGrepTimeoutMs,
    });
    return {
      matches: result.matches.map((match) => ({ path: match.name, line: match.line, text: match.text.length > maxLineCharacters ? `${match.text.slice(0, maxLineCharacters)}…` : match.text })),
      truncated: result.truncated,
      skippedFiles: result.skipped,
    };
  });
}
