import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalPostgres, stopLocalPostgres } from '../../cli/cluster/local-postgres.js';

export { postgresBinFolder, postgresInstalled } from '../../cli/cluster/local-postgres.js';

export interface PostgresServer {
  /** `postgres://harness:<password>@127.0.0.1:<port>/postgres`: a superuser on the admin database. */
  adminUrl: string;
  /** The same server and user, on another database. */
  urlFor(database: string): string;
  stop(): Promise<void>;
}

/**
 * A throwaway PostgreSQL server for tests: its own temporary folder, a free port on
 * 127.0.0.1, `fsync` on, so commits are as durable as in production. Starts in a few
 * seconds; `stop()` shuts it down and removes it.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const folder = await mkdtemp(join(tmpdir(), 'harness-postgres-'));
  let server;
  try {
    server = await startLocalPostgres({ folder });
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
  return {
    adminUrl: server.adminUrl,
    urlFor: server.urlFor,
    stop: async () => {
      try {
        await stopLocalPostgres(folder);
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },
  };
}
