import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Agents } from '../agents/agents.js';
import { InvalidRequestError, NotFoundError, PayloadTooLargeError } from '../errors.js';
import { accountBucketFolder } from './account-bucket.js';
import { validateSandboxSections } from './agent-sandbox-config.js';
import { DiskQuota, diskQuotaMessage } from './disk-quota.js';
import { SandboxToolError } from './sandbox-tool-error.js';
import { type WorkspacePath, resolveWorkspacePath } from './workspace-paths.js';

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
 * push|pull|ls`): every path goes through the same resolution as the model's file tools,
 * so `..`, absolute paths and symlinks that lead out are refused. The user may write to any
 * workspace, read-only ones included: permission modes bind the model, not the owner.
 */
export class WorkspaceFiles {
  constructor(
    private readonly agents: Agents,
    private readonly bucketFolder: string | undefined,
    /** Each account's disk quota over its bucket folder; unset, uploads are not checked. */
    private readonly diskQuotaBytes?: number,
  ) {}

  /** Host folder of a workspace; 404 for an unknown agent or workspace. */
  private async workspaceRoot(address: WorkspaceAddress): Promise<string> {
    const agent = await this.agents.load(address.accountId, address.agentId);
    const { workspace } = validateSandboxSections({ workspace: agent.config.workspace });
    const entry = workspace && Object.hasOwn(workspace, address.workspace) ? workspace[address.workspace] : undefined;
    if (!entry) throw new NotFoundError(`Agent "${address.agentId}" has no workspace "${address.workspace}".`);
    if (!this.bucketFolder) throw new Error('This service was started without a filesystem bucket folder.');
    return path.join(accountBucketFolder(this.bucketFolder, address.accountId), entry.path);
  }

  private async resolve(root: string, requested: string): Promise<WorkspacePath> {
    return resolveWorkspacePath(root, requested).catch((error: unknown) => {
      throw toRequestError(error, requested);
    });
  }

  /** Every regular file under `folder` (default the root), recursively, symlinks not followed. */
  async list(address: WorkspaceAddress, folder = '.'): Promise<WorkspaceListing> {
    const root = await this.workspaceRoot(address);
    const listing: WorkspaceListing = { agentId: address.agentId, workspace: address.workspace, path: folder, files: [], truncated: false };
    const exists = await lstat(root).then(() => true, () => false);
    if (!exists) {
      if (folder === '.' || folder === '') return listing;
      throw new NotFoundError(`"${folder}" does not exist in this workspace.`);
    }
    const start = await this.resolve(root, folder);
    listing.path = start.relativePath;
    // Listed paths are relative to the real root: a folder reached through a symlink inside
    // the workspace is listed under its real place.
    const base = await realpath(root);
    const startStats = await lstat(start.absolutePath).catch((error: unknown) => {
      throw toRequestError(error, folder);
    });
    const pending: string[] = [];
    if (startStats.isFile()) {
      listing.files.push({ path: path.relative(base, start.absolutePath).split(path.sep).join('/'), size: startStats.size, modifiedAt: startStats.mtime.toISOString() });
    } else if (startStats.isDirectory()) {
      pending.push(start.absolutePath);
    }
    while (pending.length > 0) {
      const current = pending.pop() as string;
      const entries = await readdir(current, { withFileTypes: true });
      for (const entry of entries) {
        const full = path.join(current, entry.name);
        if (entry.isDirectory()) {
          pending.push(full);
        } else if (entry.isFile()) {
          if (listing.files.length >= maxListedFiles) {
            listing.truncated = true;
            continue;
          }
          const stats = await lstat(full);
          listing.files.push({ path: path.relative(base, full).split(path.sep).join('/'), size: stats.size, modifiedAt: stats.mtime.toISOString() });
        }
      }
    }
    listing.files.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
    return listing;
  }

  /** Open a file for download; the caller streams and closes it. */
  async read(address: WorkspaceAddress, requested: string): Promise<{ path: string; size: number; stream: Readable }> {
    const root = await this.workspaceRoot(address);
    const target = await this.resolve(root, requested);
    if (target.relativePath === '.') throw new InvalidRequestError('path must name a file, not the workspace root.');
    try {
      const handle = await open(target.absolutePath, constants.O_RDONLY | constants.O_NOFOLLOW);
      const stats = await handle.stat();
      if (!stats.isFile()) {
        await handle.close();
        throw new InvalidRequestError(`path "${target.relativePath}" is not a regular file.`);
      }
      return { path: target.relativePath, size: stats.size, stream: handle.createReadStream() };
    } catch (error) {
      throw toRequestError(error, target.relativePath);
    }
  }

  /** Create or replace a file, creating its folders. */
  async write(address: WorkspaceAddress, requested: string, content: Buffer): Promise<{ path: string; bytes: number }> {
    const root = await this.workspaceRoot(address);
    await mkdir(root, { recursive: true });
    const target = await this.resolve(root, requested);
    if (target.relativePath === '.') throw new InvalidRequestError('path must name a file, not the workspace root.');
    await this.assertQuotaRoom(address.accountId, target.absolutePath, content.length);
    try {
      await mkdir(path.dirname(target.absolutePath), { recursive: true });
      const handle = await open(target.absolutePath, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
      try {
        await handle.writeFile(content);
      } finally {
        await handle.close();
      }
    } catch (error) {
      throw toRequestError(error, target.relativePath);
    }
    return { path: target.relativePath, bytes: content.length };
  }

  /** A 413 naming the quota when an upload would take the account's files past it. */
  private async assertQuotaRoom(accountId: string, target: string, bytes: number): Promise<void> {
    if (this.diskQuotaBytes === undefined || !this.bucketFolder) return;
    const quota = new DiskQuota(accountBucketFolder(this.bucketFolder, accountId), this.diskQuotaBytes);
    if (!(await quota.hasRoomFor(target, bytes))) throw new PayloadTooLargeError(diskQuotaMessage(this.diskQuotaBytes, `This ${bytes}-byte upload`));
  }

  /** Delete a file or a folder with everything in it; a symlink is removed, not followed. */
  async delete(address: WorkspaceAddress, requested: string): Promise<{ path: string }> {
    const root = await this.workspaceRoot(address);
    // Resolve the parent, so that the last segment, even a symlink, is what gets removed.
    const normalized = path.posix.normalize(requested.replaceAll('\\', '/')).replace(/\/+$/, '');
    if (normalized === '.' || normalized === '' || normalized === '/') throw new InvalidRequestError('path must name a file or folder, not the workspace root.');
    const parent = await this.resolve(root, path.posix.dirname(normalized));
    const name = path.posix.basename(normalized);
    if (name === '..' || name === '.') throw new InvalidRequestError(`path "${requested}" leads outside the workspace; paths must stay inside the workspace root.`);
    const target = path.join(parent.absolutePath, name);
    const relativePath = parent.relativePath === '.' ? name : `${parent.relativePath}/${name}`;
    await lstat(target).catch((error: unknown) => {
      throw toRequestError(error, relativePath);
    });
    await rm(target, { recursive: true, force: true });
    return { path: relativePath };
  }
}
