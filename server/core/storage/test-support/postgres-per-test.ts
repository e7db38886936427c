import { afterEach, beforeEach } from 'vitest';
import { randomSchemaName, type TestDatabaseAdmin } from '../../../../test/support/test-postgres.js';
import { PostgresStorage } from '../postgres/postgres-storage.js';

/**
 * A fresh schema for each test of the enclosing `describe` on the file's PostgreSQL
 * (`postgresForThisFile`), its `url`, and `open()`, which opens a storage on it (as often as a
 * test needs: each open is another replica or a restart). After the test every storage opened
 * is closed, then the schema is dropped.
 */
export function postgresStoragePerTest(postgres: { readonly admin: TestDatabaseAdmin }): { readonly url: string; open(poolSize?: number): PostgresStorage } {
  let schema: string | undefined;
  let url: string | undefined;
  const storages: PostgresStorage[] = [];
  beforeEach(async () => {
    schema = randomSchemaName();
    url = await postgres.admin.createSchema(schema);
  });
  afterEach(async () => {
    for (const storage of storages.splice(0)) await storage.close();
    if (schema) await postgres.admin.dropSchema(schema);
    schema = undefined;
    url = undefined;
  });
  return {
    get url() {
      if (!url) throw new Error('the schema exists only while a test runs');
      return url;
    },
    open(poolSize = 4) {
      const storage = new PostgresStorage({ connectionString: this.url, poolSize });
      storages.push(storage);
      return storage;
    },
  };
}
