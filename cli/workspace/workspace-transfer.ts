import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from '../cli-error.js';
import type { WorkspaceClient } from './workspace-client.js';

/** One file moved in or out. */
export interface TransferredFile {
  /** The path in the workspace. */
  path: string;
  /** The local file. */
  local: string;
  bytes: number;
}

/** Joins workspace path segments, dropping empty ones and `.`. */
function joinRemote(...parts: string[]): string {
  return parts.flatMap((part) => part.split('/')).filter((segment) => segment !== '' && segment !== '.').join('/');
}

async function localFiles(folder: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...(await localFiles(full)));
    else if (entry.isFile()) found.push(full);
  }
  return found.sort();
}

/**
 * Upload local files and folders into a workspace, like `cp -r <paths> <to>`: a file lands
 * at `<to>/<name>`, a folder's files at `<to>/<folder name>/<path inside it>`.
 */
export async function pushFiles(client: WorkspaceClient, localPaths: string[], to = ''): Promise<TransferredFile[]> {
  const pushed: TransferredFile[] = [];
  for (const localPath of localPaths) {
    const stats = await stat(localPath).catch((error: unknown) => {
      throw new CliError(`cannot read ${localPath}: ${(error as Error).message}`, { cause: error });
    });
    const name = path.basename(path.resolve(localPath));
    const files = stats.isDirectory() ? (await localFiles(localPath)).map((file) => ({ file, remote: joinRemote(to, name, path.relative(localPath, file).split(path.sep).join('/')) })) : [{ file: localPath, remote: joinRemote(to, name) }];
    for (const { file, remote } of files) {
      const result = await client.upload(remote, await readFile(file));
      pushed.push({ path: result.path, local: file, bytes: result.bytes });
    }
  }
  return pushed;
}

/**
 * Download workspace files (all of them, or those under the given paths) into `out`,
 * keeping their workspace paths. A path the service sends is never written outside `out`.
 */
export async function pullFiles(client: WorkspaceClient, remotePaths: string[], out: string): Promise<TransferredFile[]> {
  const root = path.resolve(out);
  const pulled: TransferredFile[] = [];
  for (const remotePath of remotePaths.length > 0 ? remotePaths : ['.']) {
    const listing = await client.list(remotePath);
    if (listing.files.length === 0) throw new CliError(`nothing to pull at "${remotePath}" in workspace ${listing.workspace}`);
    for (const file of listing.files) {
      const local = path.resolve(root, ...file.path.split('/'));
      if (local !== root && !local.startsWith(root + path.sep)) throw new CliError(`refusing to write "${file.path}" outside ${out}`);
      const content = await client.download(file.path);
      await mkdir(path.dirname(local), { recursive: true });
      await writeFile(local, content);
      pulled.push({ path: file.path, local, bytes: content.length });
    }
  }
  return pulled;
}
