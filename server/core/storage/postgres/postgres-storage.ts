import pg from 'pg';
import type { Storage, TableStore } from '../table-store.js';
import { migrate, readMigrations } from './postgres-migrations.js';
import { PostgresTable, type PostgresConnections } from './postgres-table.js';

export interface PostgresStorageOptions {
  /** `postgres://user:password@host:port/database` */
  connectionString: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /**
   * Told about an idle pooled connection that failed (the server restarted, a network cut);
   * the pool drops it and opens another when needed. Without it such an error is ignored,
   * never an unhandled 'error' event that would stop the process.
   */
  onConnectionError?: (error: Error) => void;
}

export const defaultPoolSize = 10;

/**
 * An error the server answered a statement with (a failed condition, a constraint): the
 * connection is as good as before. Anything else (a cut network, a killed backend, a fatal
 * error) leaves it in an unknown state.
 */
function answeredByServer(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.severity !== 'FATAL' && error.severity !== 'PANIC';
}

/**
 * Storage on PostgreSQL, for several service replicas sharing one database: every harness
 * table in one SQL table (see `migrations/`), a pool of connections, named statements, and a
 * batch per transaction. The schema is created and migrated on first use (or `ready()`).
 * `close()` ends the pool; using the storage again opens a new one, as lowdb reopens its folder.
 */
export class PostgresStorage implements Storage {
  private readonly tables = new Map<string, PostgresTable<unknown>>();
  private pool: pg.Pool | undefined;
  private migrated: Promise<void> | undefined;
  private readonly connections: PostgresConnections = {
    query: async <Row>(statement: { name: string; text: string }, values: unknown[]) => {
      // Not `pool.query`: it closes the connection after any error, so every refused
      // conditional write (an error the server raises on purpose) cost a new connection, and
      // its session's prepared statements and plans, about 40 ms.
      const client = await (await this.readyPool()).connect();
      let broken: Error | undefined;
      try {
        return (await client.query<Row & pg.QueryResultRow>({ ...statement, values })).rows;
      } catch (error) {
        if (!answeredByServer(error)) broken = error as Error;
        throw error;
      } finally {
        client.release(broken);
      }
    },
    transaction: async (work) => {
      const client = await (await this.readyPool()).connect();
      // Back to the pool only once COMMIT or ROLLBACK went through; otherwise the
      // connection's state is unknown (a cut network, a killed backend) and it is closed.
      let ended = false;
      try {
        await client.query('BEGIN');
        let result: Awaited<ReturnType<typeof work>>;
        try {
          result = await work(client);
        } catch (error) {
          await client.query('ROLLBACK').then(
            () => (ended = true),
            () => undefined,
          );
          throw error;
        }
        await client.query('COMMIT');
        ended = true;
        return result;
      } finally {
        client.release(!ended);
      }
    },
  };

  constructor(private readonly options: PostgresStorageOptions) {}

  table<T>(name: string): TableStore<T> {
    let table = this.tables.get(name);
    if (!table) {
      table = new PostgresTable<unknown>(name, this.connections);
      this.tables.set(name, table);
    }
    return table as unknown as TableStore<T>;
  }

  /** Connect and bring the schema up to date; rejects when the database cannot be reached. */
  async ready(): Promise<void> {
    await this.readyPool();
  }

  async close(): Promise<void> {
    const pool = this.pool;
    const migrated = this.migrated;
    this.pool = undefined;
    this.migrated = undefined;
    await migrated?.catch(() => undefined);
    await pool?.end();
  }

  private async readyPool(): Promise<pg.Pool> {
    const pool = (this.pool ??= this.openPool());
    this.migrated ??= readMigrations()
      .then((migrations) => migrate(pool, migrations))
      .then(() => undefined);
    // A failed start (database unreachable) is retried by the next call, not remembered.
    const migrated = this.migrated;
    await migrated.catch((error: unknown) => {
      if (this.migrated === migrated) this.migrated = undefined;
      throw error;
    });
    return pool;
  }

  private openPool(): pg.Pool {
    const pool = new pg.Pool({ connectionString: this.options.connectionString, max: this.options.poolSize ?? defaultPoolSize });
    pool.on('error', (error) => this.options.onConnectionError?.(error));
    return pool;
  }
}
