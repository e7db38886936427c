import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** Where the binary is looked for after `PATH`: Debian's package puts it in /usr/sbin, which a user's PATH often lacks. */
export const extraNatsServerFolders = ['/usr/sbin', '/usr/local/bin', '/usr/bin'];

/** The message of a missing binary: it says how to get one, or how to use an outside server instead. */
export const natsServerInstallHint =
  'nats-server was not found on PATH, /usr/sbin or /usr/local/bin. Install it with `apt-get install -y nats-server` ' +
  '(Debian/Ubuntu; or download a release from https://github.com/nats-io/nats-server/releases), ' +
  'or set NATS_URL to an outside NATS server (see docs/nats.md), or set ENABLE_WEBSOCKET=false to run without NATS.';

/** Thrown when no `nats-server` executable can be found. */
export class NatsServerBinaryMissingError extends Error {
  readonly searchedFolders: string[];
  constructor(searchedFolders: string[]) {
    super(natsServerInstallHint);
    this.name = 'NatsServerBinaryMissingError';
    this.searchedFolders = searchedFolders;
  }
}

/** The folders searched by default: every `PATH` entry, then the usual system folders. */
export function defaultNatsServerSearchFolders(environment: NodeJS.ProcessEnv = process.env): string[] {
  const fromPath = (environment.PATH ?? '').split(delimiter).filter((folder) => folder !== '');
  return [...new Set([...fromPath, ...extraNatsServerFolders])];
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const details = await stat(path);
    if (!details.isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The absolute path of the first executable `nats-server` in `searchFolders`.
 * Throws {@link NatsServerBinaryMissingError} (whose message says how to install it) when there is none.
 */
export async function findNatsServerBinary(searchFolders: string[] = defaultNatsServerSearchFolders()): Promise<string> {
  for (const folder of searchFolders) {
    const candidate = join(folder, 'nats-server');
    if (await isExecutableFile(candidate)) return candidate;
  }
  throw new NatsServerBinaryMissingError(searchFolders);
}
