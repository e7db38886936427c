import { afterEach, beforeEach } from 'vitest';
import type { Coordination } from '../../server/core/coordination/coordination.js';
import { postgresCoordination } from '../../server/core/coordination/postgres/postgres-coordination.js';
import { silentLogger } from '../../server/core/logger.js';
import { PostgresStorage } from '../../server/core/storage/postgres/postgres-storage.js';
import { randomSchemaName, type TestDatabaseAdmin } from './test-postgres.js';

export interface CoordinationReplicas {
  /** The schema of the running test: its tables are there. */
  readonly schema: string;
  /** A URL of the test database that reads and writes the schema. */
  readonly url: string;
  /** One more replica in this process (not started): closed after the test. Named `replica-<n>` unless named. */
  replica(leaseMs?: number, replicaName?: string): Coordination;
  /** Closes a replica now, as a killed process's connections end, and leaves it out of the clean-up. */
  kill(coordination: Coordination): Promise<void>;
}

/**
 * Replicas of the PostgreSQL coordination in one process, as several service replicas on one
 * database: each test gets a schema of its own, with the tables a storage migrates, dropped
 * after the test once its replicas are closed. Call it inside a `describe`.
 */
export function coordinationReplicasPerTest(postgres: { readonly admin: TestDatabaseAdmin }, poolSize: number): CoordinationReplicas {
  let schema = '';
  let url = '';
  let replicas = 0;
  const opened: Coordination[] = [];
  beforeEach(async () => {
    schema = randomSchemaName();
    url = await postgres.admin.createSchema(schema);
    const storage = new PostgresStorage({ connectionString: url, poolSize: 1 });
    await storage.ready();
    await storage.close();
  });
  afterEach(async () => {
    for (const coordination of opened.splice(0)) await coordination.close();
    await postgres.admin.dropSchema(schema);
  });
  return {
    get schema() {
      return schema;
    },
    get url() {
      return url;
    },
    replica(leaseMs = 30_000, replicaName = `replica-${(replicas += 1)}`) {
      const coordination = postgresCoordination({ connectionString: url, settings: { leaseMs, jobPollMs: 20, cronResyncMs: 1_000 }, logger: silentLogger, poolSize, replicaName });
      opened.push(coordination);
      return coordination;
    },
    async kill(coordination) {
      opened.splice(opened.indexOf(coordination), 1);
      await coordination.close();
    },
  };
}
