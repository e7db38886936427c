import { SandboxToolError } from './sandbox-tool-error.js';
import { loadTextFileBeneath, splitLines, truncateUtf8 } from './text-files.js';
import { type WorkspaceRoot, withWorkspaceRoot } from './workspace-root.js';

export interface ReadFileRequest {
  /** The workspace root: a host folder, or a base folder and the workspace path under it. */
  root: WorkspaceRoot;
  /** Path relative to the root. */
  path: string;
  /** First line to return, counting from 1 (default 1). */
  offset?: number;
  /** How many lines to return (default 2000). */
  limit?: number;
  /** Cap on the returned content in bytes (default 65536). */
  maxBytes?: number;
}

export interface ReadFileResult {
  path: string;
  content: string;
  totalLines: number;
  /** True when lines after the window, or bytes past maxBytes, were left out. */
  truncated: boolean;
  /** The offset that continues the read, when lines were left out after the window. */
  nextOffset?: number;
}

export const defaultReadLineLimit = 2000;

/** Read a window of lines of a text file inside a workspace. */
export async function readWorkspaceFile(request: ReadFileRequest): Promise<ReadFileResult> {
  const offset = request.offset ?? 1;
  const limit = request.limit ?? defaultReadLineLimit;
  if (!Number.isInteger(offset) || offset < 1) throw new SandboxToolError('invalid-input', 'offset must be a line number from 1.');
  if (!Number.isInteger(limit) || limit < 1) throw new SandboxToolError('invalid-input', 'limit must be a positive number of lines.');
  const target = await withWorkspaceRoot(request.root, (root) => loadTextFileBeneath(root, request.path));
  const lines = splitLines(target.text);
  if (offset > 1 && offset > lines.length) {
    throw new SandboxToolError('invalid-input', `offset ${offset} is past the end of "${target.relativePath}", which has ${lines.length} lines.`);
  }
  const window = lines.slice(offset - 1, offset - 1 + limit);
  const moreLines = offset - 1 + window.length < lines.length;
  const capped = truncateUtf8(window.join('\n'), request.maxBytes ?? 65_536);
  const result: ReadFileResult = {
    path: target.relativePath,
    content: capped.text,
    totalLines: lines.length,
    truncated: moreLines || capped.truncated,
  };
  if (moreLines && !capped.truncated) result.nextOffset = offset + window.length;
  return result;
}
