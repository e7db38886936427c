import type { DiskQuota } from './disk-quota.js';
import { SandboxToolError } from './sandbox-tool-error.js';
import { loadTextFileBeneath } from './text-files.js';
import { type WorkspaceRoot, withWorkspaceRoot } from './workspace-root.js';
import { readOnlyError, writeWorkspaceFile } from './write-file.js';

export interface EditFileRequest {
  root: WorkspaceRoot;
  path: string;
  /** Exact text to find; it must occur exactly once unless replaceAll is set. */
  oldText: string;
  newText: string;
  replaceAll?: boolean;
  readOnly?: boolean;
  /** The account's disk quota, checked by the write that saves the edit. */
  diskQuota?: DiskQuota;
}

export interface EditFileResult {
  path: string;
  replacements: number;
}

function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + search.length)) count += 1;
  return count;
}

/** Replace exact text in a file inside a workspace. */
export async function editWorkspaceFile(request: EditFileRequest): Promise<EditFileResult> {
  if (request.readOnly) throw readOnlyError('edit');
  if (request.oldText === '') throw new SandboxToolError('invalid-input', 'oldText must not be empty; use write to create a file.');
  if (request.oldText === request.newText) throw new SandboxToolError('invalid-input', 'oldText and newText are the same; nothing to change.');
  const target = await withWorkspaceRoot(request.root, (root) => loadTextFileBeneath(root, request.path));
  const { text } = target;
  const occurrences = countOccurrences(text, request.oldText);
  if (occurrences === 0) {
    throw new SandboxToolError('no-match', `oldText was not found in "${target.relativePath}"; it must match exactly, including whitespace and line breaks.`);
  }
  if (occurrences > 1 && !request.replaceAll) {
    throw new SandboxToolError('ambiguous-match', `oldText occurs ${occurrences} times in "${target.relativePath}"; add surrounding text to make it unique, or set replaceAll.`);
  }
  // split/join, not String.replace: newText must not be read as a `$&` replacement pattern.
  const updated = text.split(request.oldText).join(request.newText);
  await writeWorkspaceFile({ root: request.root, path: request.path, content: updated, diskQuota: request.diskQuota });
  return { path: target.relativePath, replacements: occurrences };
}
