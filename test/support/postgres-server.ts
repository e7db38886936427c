import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian and Ubuntu put each PostgreSQL version's server programs (they are not on PATH). */
const debianFolder = '/usr/lib/postgresql';

export interface PostgresServer {
  /** `postgres://harness:<password>@127.0.0.1:<port>/postgres`: a superuser on the admin database. */
  adminUrl: string;
  /** The same server and user, on another database. */
  urlFor(database: string): string;
  stop(): Promise<void>;
}

/** `HARNESS_TEST_POSTGRES_BIN`, else the newest version under /usr/lib/postgresql (15 here; CI installs the distribution's). */
export function postgresBinFolder(): string {
  if (process.env.HARNESS_TEST_POSTGRES_BIN) return process.env.HARNESS_TEST_POSTGRES_BIN;
  const versions = existsSync(debianFolder) ? readdirSync(debianFolder).filter((name) => /^\d+$/.test(name)).sort((left, right) => Number(right) - Number(left)) : [];
  return join(debianFolder, versions[0] ?? '15', 'bin');
}

export function postgresInstalled(): boolean {
  return existsSync(join(postgresBinFolder(), 'initdb'));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Run PostgreSQL's programs as the user that owns the cluster: PostgreSQL refuses to run as
 * root, so as root they run as `postgres` (which must then reach the folder).
 */
async function asClusterOwner(program: string, args: string[]): Promise<void> {
  const binary = join(postgresBinFolder(), program);
  if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', binary, ...args]);
  else await run(binary, args);
}

/** Let the `postgres` user pass through the folders above the cluster (read and list stay closed). */
async function openPathFor(folder: string): Promise<void> {
  for (let parent = dirname(folder); parent !== dirname(parent); parent = dirname(parent)) {
    const { mode } = await stat(parent);
    if ((mode & 0o001) === 0) await chmod(parent, (mode & 0o7777) | 0o001);
  }
}

/**
 * A throwaway PostgreSQL cluster for tests: its own folder, a free port on 127.0.0.1, its
 * socket in its folder, a password-checked superuser, and `fsync` on, so commits are as
 * durable as in production. Starts in a few seconds; `stop()` shuts it down and removes it.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const folder = await mkdtemp(join(tmpdir(), 'harness-postgres-'));
  const dataFolder = join(folder, 'data');
  const password = `test-${Math.random().toString(36).slice(2)}`;
  const passwordFile = join(folder, 'password');
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  if (process.getuid?.() === 0) {
    await openPathFor(folder);
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(folder, Number(stdout.trim()), Number(group.trim()));
    await chown(passwordFile, Number(stdout.trim()), Number(group.trim()));
  }
  const port = await freePort();
  try {
    await asClusterOwner('initdb', ['-D', dataFolder, '-U', 'harness', `--pwfile=${passwordFile}`, '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
    const settings = [`-p ${port}`, "-c listen_addresses='127.0.0.1'", `-c unix_socket_directories='${folder}'`, '-c fsync=on', '-c max_connections=300'];
    await asClusterOwner('pg_ctl', ['-D', dataFolder, '-l', join(folder, 'server.log'), '-w', '-t', '60', '-o', settings.join(' '), 'start']);
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
  const urlFor = (database: string) => `postgres://harness:${password}@127.0.0.1:${port}/${database}`;
  return {
    adminUrl: urlFor('postgres'),
    urlFor,
    stop: async () => {
      try {
        await asClusterOwner('pg_ctl', ['-D', dataFolder, '-m', 'fast', '-w', 'stop']);
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },
  };
}
