import { stat } from 'node:fs/promises';
import { resolveWorkspacePath } from './workspace-paths.js';
import { SandboxToolError } from './sandbox-tool-error.js';
import { checkRelativePattern, listMatchingFiles } from './glob-files.js';
import { loadTextFile, splitLines, toToolError } from './text-files.js';

export interface GrepFilesRequest {
  root: string;
  /** A JavaScript regular expression, matched line by line. */
  pattern: string;
  /** A file or folder relative to the root (default the root). */
  path?: string;
  /** Only search files matching this glob, relative to `path` (default every file). */
  glob?: string;
  ignoreCase?: boolean;
  /** Cap on the number of matches returned (default 200). */
  maxMatches?: number;
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

function compile(pattern: string, ignoreCase: boolean): RegExp {
  if (pattern.length > 1000) throw new SandboxToolError('invalid-input', 'pattern must be at most 1000 characters.');
  try {
    return new RegExp(pattern, ignoreCase ? 'iu' : 'u');
  } catch (error) {
    throw new SandboxToolError('invalid-input', `pattern is not a valid regular expression: ${(error as Error).message}`);
  }
}

async function filesToSearch(request: GrepFilesRequest): Promise<string[]> {
  const start = await resolveWorkspacePath(request.root, request.path ?? '.');
  let isFile: boolean;
  try {
    isFile = (await stat(start.absolutePath)).isFile();
  } catch (error) {
    throw toToolError(error, start.relativePath);
  }
  if (isFile) return [start.relativePath];
  if (request.glob !== undefined) checkRelativePattern(request.glob, 'glob');
  return listMatchingFiles(request.root, start.relativePath, request.glob ?? '**/*');
}

/** Search text files in a workspace for lines matching a regular expression. */
export async function grepWorkspaceFiles(request: GrepFilesRequest): Promise<GrepFilesResult> {
  const expression = compile(request.pattern, request.ignoreCase ?? false);
  const maxMatches = request.maxMatches ?? 200;
  const matches: GrepMatch[] = [];
  let skippedFiles = 0;
  for (const file of await filesToSearch(request)) {
    let text: string;
    try {
      const target = await resolveWorkspacePath(request.root, file);
      text = await loadTextFile(target.absolutePath, target.relativePath);
    } catch (error) {
      if (!(error instanceof SandboxToolError)) throw error;
      skippedFiles += 1;
      continue;
    }
    const lines = splitLines(text);
    for (const [index, line] of lines.entries()) {
      if (!expression.test(line)) continue;
      if (matches.length === maxMatches) return { matches, truncated: true, skippedFiles };
      matches.push({ path: file, line: index + 1, text: line.length > maxLineCharacters ? `${line.slice(0, maxLineCharacters)}…` : line });
    }
  }
  return { matches, truncated: false, skippedFiles };
}
