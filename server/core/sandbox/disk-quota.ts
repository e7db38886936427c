import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { formatBytes } from './sandbox-settings.js';
import { SandboxToolError } from './sandbox-tool-error.js';

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Bytes a folder takes, walked without following symbolic links (a link counts as itself,
 * never as what it points at). Each entry counts the larger of its length and the blocks
 * it holds, so neither a sparse file nor many tiny files slip under the quota; hard links
 * count once. A folder that does not exist takes 0 bytes.
 */
export async function folderBytes(folder: string): Promise<number> {
  const seen = new Set<string>();
  let total = 0;
  const pending = [folder];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    let stats;
    try {
      stats = await lstat(current);
    } catch (error) {
      // Removed while we walked (bash deleting files): it no longer takes room.
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') continue;
      throw error;
    }
    const inode = `${stats.dev}:${stats.ino}`;
    if (seen.has(inode)) continue;
    seen.add(inode);
    total += Math.max(stats.size, stats.blocks * 512);
    if (!stats.isDirectory()) continue;
    const entries = await readdir(current).catch((error: unknown) => {
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return [];
      throw error;
    });
    for (const entry of entries) pending.push(path.join(current, entry));
  }
  return total;
}

/** The sentence the model or the user reads when a write would go past the quota. */
export function diskQuotaMessage(maxBytes: number, what: string): string {
  return `${what} would take the account's files past its disk quota of ${formatBytes(maxBytes)}; delete files to make room.`;
}

/**
 * One account's disk quota over its folder in the bucket (all its workspaces and skill
 * files). Checked before a write tool, an edit or an upload writes, and watched while bash
 * runs. Two writes at the same moment may each pass the check: the quota bounds an
 * account's files to about the quota plus one write, not to the byte.
 */
export class DiskQuota {
  constructor(
    /** Host folder of the account in the bucket. */
    readonly folder: string,
    readonly maxBytes: number,
  ) {}

  usage(): Promise<number> {
    return folderBytes(this.folder);
  }

  /** Whether replacing `target` (an absolute path) with `bytes` bytes stays within the quota. */
  async hasRoomFor(target: string, bytes: number): Promise<boolean> {
    const [used, replaced] = await Promise.all([this.usage(), lstat(target).then((stats) => (stats.isFile() ? Math.max(stats.size, stats.blocks * 512) : 0), () => 0)]);
    return used - replaced + bytes <= this.maxBytes;
  }

  /** Refuse, as a tool error the model reads, a write that would go past the quota. */
  async assertRoomFor(target: string, bytes: number, relativePath: string): Promise<void> {
    if (await this.hasRoomFor(target, bytes)) return;
    throw new SandboxToolError('disk-quota', diskQuotaMessage(this.maxBytes, `Writing ${formatBytes(bytes)} to "${relativePath}"`));
  }
}
