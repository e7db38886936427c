import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { SandboxToolError } from './sandbox-tool-error.js';

/** A model-given path resolved inside a workspace. */
export interface WorkspacePath {
  /** Host path with every existing symlink resolved; always inside the real root. */
  absolutePath: string;
  /** The path relative to the workspace root, with `/` separators, for messages and results. */
  relativePath: string;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function isInside(realRoot: string, candidate: string): boolean {
  return candidate === realRoot || candidate.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep);
}

/**
 * Resolve a path the model gave inside a workspace root. Absolute paths, `..` that climbs
 * out, and symlinks that lead outside (judged by the realpath of the deepest existing
 * ancestor) are refused with a SandboxToolError. A dangling symlink is refused too: writing
 * through it would create its target, wherever that is.
 */
export async function resolveWorkspacePath(root: string, requested: string): Promise<WorkspacePath> {
  if (requested.includes('\0')) throw new SandboxToolError('invalid-input', 'The path contains a NUL character.');
  if (path.isAbsolute(requested)) {
    throw new SandboxToolError('path-outside-workspace', `"${requested}" is an absolute path; give a path relative to the workspace root (for example "src/index.ts").`);
  }
  const realRoot = await realpath(root).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') throw new SandboxToolError('not-found', 'The workspace folder does not exist yet; nothing has been written to it.');
    throw error;
  });
  const candidate = path.resolve(realRoot, requested);
  const relative = path.relative(realRoot, candidate);
  if (!isInside(realRoot, candidate)) {
    throw new SandboxToolError('path-outside-workspace', `"${requested}" leads outside the workspace; paths must stay inside the workspace root.`);
  }
  const relativePath = relative === '' ? '.' : relative.split(path.sep).join('/');

  let existing = candidate;
  let realExisting: string;
  for (;;) {
    try {
      realExisting = await realpath(existing);
      break;
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ELOOP') {
        throw new SandboxToolError('path-outside-workspace', `"${relativePath}" goes through a symbolic link loop.`);
      }
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      const isDanglingLink = await lstat(existing).then((stats) => stats.isSymbolicLink(), () => false);
      if (isDanglingLink) {
        throw new SandboxToolError('path-outside-workspace', `"${relativePath}" goes through a symbolic link whose target does not exist; it is not followed.`);
      }
      existing = path.dirname(existing);
    }
  }
  if (!isInside(realRoot, realExisting)) {
    throw new SandboxToolError('path-outside-workspace', `"${relativePath}" goes through a symbolic link that leads outside the workspace; it is not followed.`);
  }
  return { absolutePath: path.join(realExisting, path.relative(existing, candidate)), relativePath };
}
