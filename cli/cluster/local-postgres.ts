import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { CliError } from '../cli-error.js';

const run = promisify(execFile);

/**
 * A PostgreSQL server of our own on loopback, for `harness cluster up` and the tests. The
 * programs come from Debian's `postgresql` package, which puts each version's server programs
 * under `/usr/lib/postgresql/<version>/bin` (not on PATH). PostgreSQL refuses to run as root,
 * so when we are root every program runs as the `postgres` user the package creates, and the
 * server's folder belongs to that user.
 */

/** Where Debian and Ubuntu put each PostgreSQL version's server programs. */
const debianFolder = '/usr/lib/postgresql';

/** Thrown when initdb/pg_ctl are missing: says how to install them. */
export class PostgresNotInstalledError extends CliError {
  constructor(binFolder: string) {
    super(
      `PostgreSQL's server programs are not installed (no initdb in ${binFolder}). Install them with: apt-get install -y postgresql ` +
        '(or point HARNESS_POSTGRES_BIN at the folder that holds initdb and pg_ctl).',
    );
  }
}

/**
 * `HARNESS_POSTGRES_BIN` (or the tests' older `HARNESS_TEST_POSTGRES_BIN`), else the newest
 * version under /usr/lib/postgresql.
 */
export function postgresBinFolder(environment: NodeJS.ProcessEnv = process.env): string {
  const configured = environment.HARNESS_POSTGRES_BIN || environment.HARNESS_TEST_POSTGRES_BIN;
  if (configured) return configured;
  const versions = existsSync(debianFolder) ? readdirSync(debianFolder).filter((name) => /^\d+$/.test(name)).sort((left, right) => Number(right) - Number(left)) : [];
  return join(debianFolder, versions[0] ?? '15', 'bin');
}

export function postgresInstalled(environment: NodeJS.ProcessEnv = process.env): boolean {
  return existsSync(join(postgresBinFolder(environment), 'initdb'));
}

/** A free TCP port on 127.0.0.1, picked by the OS. */
export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const runningAsRoot = (): boolean => process.getuid?.() === 0;

/** Runs one of PostgreSQL's programs as the user that owns the server's folder. */
async function asServerOwner(program: string, args: string[]): Promise<void> {
  const binary = join(postgresBinFolder(), program);
  if (runningAsRoot()) await run('runuser', ['-u', 'postgres', '--', binary, ...args]);
  else await run(binary, args);
}

/** Let the `postgres` user pass through the folders above the server's (read and list stay closed). */
async function openPathFor(folder: string): Promise<void> {
  for (let parent = dirname(folder); parent !== dirname(parent); parent = dirname(parent)) {
    const { mode } = await stat(parent);
    if ((mode & 0o001) === 0) await chmod(parent, (mode & 0o7777) | 0o001);
  }
}

async function handToPostgresUser(paths: string[]): Promise<void> {
  const { stdout: user } = await run('id', ['-u', 'postgres']);
  const { stdout: group } = await run('id', ['-g', 'postgres']);
  for (const path of paths) await chown(path, Number(user.trim()), Number(group.trim()));
}

export interface LocalPostgres {
  /** `postgres://harness:<password>@127.0.0.1:<port>/postgres`: a superuser on the admin database. */
  adminUrl: string;
  /** The same server and user, on another database. */
  urlFor(database: string): string;
  port: number;
  /** The postmaster's process id. */
  pid: number;
  /** The server's folder: `data/`, `password`, `server.log`, the socket. */
  folder: string;
}

export interface StartLocalPostgresOptions {
  /** The server's folder; made when missing. A folder that already holds a server is started again with its data. */
  folder: string;
  /** Default: a free port. */
  port?: number;
  /** fsync on (default) makes commits as durable as in production; off suits throwaway servers. */
  fsync?: boolean;
}

/** The postmaster's pid from `data/postmaster.pid`, or undefined when it is not running. */
export async function postmasterPid(folder: string): Promise<number | undefined> {
  try {
    const pid = Number((await readFile(join(folder, 'data', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts a PostgreSQL server in `folder` on 127.0.0.1 (its socket in the folder, a
 * password-checked superuser `harness`), initializing the folder first when it is new.
 * Resolves once it accepts connections. The server is a daemon: it outlives this process until
 * `stopLocalPostgres`.
 */
export async function startLocalPostgres(options: StartLocalPostgresOptions): Promise<LocalPostgres> {
  if (!postgresInstalled()) throw new PostgresNotInstalledError(postgresBinFolder());
  const { folder } = options;
  const dataFolder = join(folder, 'data');
  const passwordFile = join(folder, 'password');
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const initialized = existsSync(join(dataFolder, 'PG_VERSION'));
  if (!initialized) await writeFile(passwordFile, `harness-${randomBytes(18).toString('base64url')}\n`, { mode: 0o600 });
  const password = (await readFile(passwordFile, 'utf8')).trim();
  if (runningAsRoot()) {
    await openPathFor(folder);
    await handToPostgresUser([folder, passwordFile]);
  }
  const port = options.port ?? (await freeLoopbackPort());
  if (!initialized) {
    await asServerOwner('initdb', ['-D', dataFolder, '-U', 'harness', `--pwfile=${passwordFile}`, '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  }
  const settings = [`-p ${port}`, "-c listen_addresses='127.0.0.1'", `-c unix_socket_directories='${folder}'`, `-c fsync=${options.fsync === false ? 'off' : 'on'}`, '-c max_connections=300'];
  await asServerOwner('pg_ctl', ['-D', dataFolder, '-l', join(folder, 'server.log'), '-w', '-t', '60', '-o', settings.join(' '), 'start']);
  const pid = await postmasterPid(folder);
  if (pid === undefined) throw new CliError(`PostgreSQL started but ${join(dataFolder, 'postmaster.pid')} names no process.`);
  const urlFor = (database: string): string => `postgres://harness:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return { adminUrl: urlFor('postgres'), urlFor, port, pid, folder };
}

/** Stops the server of `folder` (fast shutdown: open sessions are ended); nothing when it does not run. */
export async function stopLocalPostgres(folder: string): Promise<void> {
  if ((await postmasterPid(folder)) === undefined) return;
  await asServerOwner('pg_ctl', ['-D', join(folder, 'data'), '-m', 'fast', '-w', '-t', '60', 'stop']);
}
