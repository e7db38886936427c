import { type FileHandle, lstat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { validateAgentConfigSections } from '../agent-config/agent-config-sections.js';
import type { Agents } from '../agents/agents.js';
import { InvalidRequestError, NotFoundError, PayloadTooLargeError } from '../errors.js';
import { accountBucketFolder } from './account-bucket.js';
import { DiskQuota, diskQuotaMessage } from './disk-quota.js';
import { entryPath, openChildFolder } from './folder-handles.js';
import { removeEntryBeneath, walkFilesBeneath } from './folder-walk.js';
import { SandboxToolError } from './sandbox-tool-error.js';
import { openForReading } from './text-files.js';
import { normalizeWorkspacePath, withPathBeneath } from './workspace-paths.js';
import { type WorkspaceLocation, withWorkspaceRoot } from './workspace-root.js';
import { type RoomCheck, writeFileBeneath } from './write-file.js';

/** A file in a workspace, as listings show it. */
export interface WorkspaceFileEntry {
  /** Relative to the workspace root, `/`-separated. */
  path: string;
  size: number;
  modifiedAt: string;
}

export interface WorkspaceListing {
  agentId: string;
  workspace: string;
  /** The folder listed, relative to the workspace root (`.` for the root). */
  path: string;
  files: WorkspaceFileEntry[];
  /** True when more than `maxListedFiles` files were found and the rest left out. */
  truncated: boolean;
}

export const maxListedFiles = 10_000;

/** Which workspace of which agent a request addresses. */
export interface WorkspaceAddress {
  accountId: string;
  agentId: string;
  workspace: string;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** A path refusal becomes a 400 (or 404 when nothing is there), never a host path. */
function toRequestError(error: unknown, requested: string): unknown {
  if (error instanceof SandboxToolError) {
    return error.kind === 'not-found' ? new NotFoundError(`"${requested}" does not exist in this workspace.`) : new InvalidRequestError(`path ${error.message}`);
  }
  const code = errorCode(error);
  if (code === 'ENOENT' || code === 'ENOTDIR') return new NotFoundError(`"${requested}" does not exist in this workspace.`);
  if (code === 'EISDIR') return new InvalidRequestError(`path "${requested}" is a folder, not a file.`);
  if (code === 'ELOOP') return new InvalidRequestError(`path "${requested}" is a symbolic link; it is not followed.`);
  return error;
}

/**
 * The files of an agent's workspaces as the account's user sees them (`harness workspace
 * push|pull|ls`): every path goes through the same race-free walk as the model's file tools
 * (see withPathBeneath), so `..`, absolute paths and symlinks that lead out are refused, and
 * nothing swapped in by a bash call running meanwhile is followed. The user may write to any
 * workspace, read-only ones included: permission modes bind the model, not the owner.
 */
export class WorkspaceFiles {
  constructor(
    private readonly agents: Agents,
    private readonly bucketFolder: string | undefined,
    /** Each account's disk quota over its bucket folder; unset, uploads are not checked. */
    private readonly diskQuotaBytes?: number,
  ) {}

  /** Where a workspace lives; 404 for an unknown agent or workspace. */
  private async workspaceRoot(address: WorkspaceAddress): Promise<WorkspaceLocation> {
    const agent = await this.agents.load(address.accountId, address.agentId);
    const { workspace } = validateAgentConfigSections({ workspace: agent.config.workspace });
    const entry = workspace && Object.hasOwn(workspace, address.workspace) ? workspace[address.workspace] : undefined;
    if (!entry) throw new NotFoundError(`Agent "${address.agentId}" has no workspace "${address.workspace}".`);
    if (!this.bucketFolder) throw new Error('This service was started without a filesystem bucket folder.');
    return { base: accountBucketFolder(this.bucketFolder, address.accountId), path: entry.path };
  }

  private normalize(requested: string): string {
    try {
      return normalizeWorkspacePath(requested).relativePath;
    } catch (error) {
      throw toRequestError(error, requested);
    }
  }

  /** Every regular file under `folder` (default the root), recursively, symlinks not followed. */
  async list(address: WorkspaceAddress, folder = '.'): Promise<WorkspaceListing> {
    const location = await this.workspaceRoot(address);
    const start = this.normalize(folder);
    const listing: WorkspaceListing = { agentId: address.agentId, workspace: address.workspace, path: start, files: [], truncated: false };
    const prefix = start === '.' ? '' : `${start}/`;
    const add = (relativePath: string, stats: { size: number; mtime: Date }) => {
      if (listing.files.length >= maxListedFiles) {
        listing.truncated = true;
        return;
      }
      listing.files.push({ path: relativePath, size: stats.size, modifiedAt: stats.mtime.toISOString() });
    };
    try {
      await withWorkspaceRoot(location, (root) =>
        withPathBeneath(root, folder, async (target) => {
          const handle = await openForReading(target);
          try {
            const stats = await handle.stat();
            if (stats.isFile()) add(start, stats);
            else if (stats.isDirectory()) {
              await walkFilesBeneath(handle, async (parent, name, relativePath) => {
                const fileStats = await lstat(entryPath(parent, name)).catch(() => undefined);
                if (fileStats?.isFile()) add(prefix + relativePath, fileStats);
              });
            }
          } finally {
            await handle.close();
          }
        }),
      );
    } catch (error) {
      // A workspace never written yet has no folder: its root lists as empty.
      if (start === '.' && error instanceof SandboxToolError && error.kind === 'not-found') return listing;
      throw toRequestError(error, start);
    }
    listing.files.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
    return listing;
  }

  /** Open a file for download; the caller streams and closes it. */
  async read(address: WorkspaceAddress, requested: string): Promise<{ path: string; size: number; stream: Readable }> {
    const location = await this.workspaceRoot(address);
    const relativePath = this.normalize(requested);
    if (relativePath === '.') throw new InvalidRequestError('path must name a file, not the workspace root.');
    let handle: FileHandle;
    try {
      handle = await withWorkspaceRoot(location, (root) => withPathBeneath(root, requested, openForReading));
    } catch (error) {
      throw toRequestError(error, relativePath);
    }
    const stats = await handle.stat();
    if (!stats.isFile()) {
      await handle.close();
      throw new InvalidRequestError(`path "${relativePath}" is not a regular file.`);
    }
    return { path: relativePath, size: stats.size, stream: handle.createReadStream({ start: 0 }) };
  }

  /** Create or replace a file, creating its folders. */
  async write(address: WorkspaceAddress, requested: string, content: Buffer): Promise<{ path: string; bytes: number }> {
    const location = await this.workspaceRoot(address);
    const relativePath = this.normalize(requested);
    if (relativePath === '.') throw new InvalidRequestError('path must name a file, not the workspace root.');
    try {
      await withWorkspaceRoot(location, (root) => writeFileBeneath(root, requested, content, this.uploadRoomCheck(address.accountId)), true);
    } catch (error) {
      throw toRequestError(error, relativePath);
    }
    return { path: relativePath, bytes: content.length };
  }

  /** A 413 naming the quota when an upload would take the account's files past it. */
  private uploadRoomCheck(accountId: string): RoomCheck | undefined {
    const maxBytes = this.diskQuotaBytes;
    if (maxBytes === undefined || !this.bucketFolder) return undefined;
    const quota = new DiskQuota(accountBucketFolder(this.bucketFolder, accountId), maxBytes);
    return async (entry, bytes) => {
      if (!(await quota.hasRoomFor(entry, bytes))) throw new PayloadTooLargeError(diskQuotaMessage(maxBytes, `This ${bytes}-byte upload`));
    };
  }

  /** Delete a file or a folder with everything in it; a symlink is removed, not followed. */
  async delete(address: WorkspaceAddress, requested: string): Promise<{ path: string }> {
    const location = await this.workspaceRoot(address);
    const relativePath = this.normalize(requested);
    if (relativePath === '.') throw new InvalidRequestError('path must name a file or folder, not the workspace root.');
    // Walk to the parent, so that the last segment, even a symlink, is what gets removed.
    const parent = path.posix.dirname(relativePath);
    const name = path.posix.basename(relativePath);
    try {
      await withWorkspaceRoot(location, (root) =>
        withPathBeneath(root, parent, async (target) => {
          const folder = target.name === undefined ? target.folder : await openChildFolder(target.folder, target.name, false);
          try {
            await removeEntryBeneath(folder, name);
          } finally {
            if (folder !== target.folder) await folder.close();
          }
        }),
      );
    } catch (error) {
      throw toRequestError(error, relativePath);
    }
    return { path: relativePath };
  }
}
