/**
 * Every statement the PostgreSQL storage runs, as named statements: each connection parses
 * and plans one the first time it runs it, and after that sends only its parameters.
 * Every lookup goes through the primary key (table_name, partition, key).
 */
export interface NamedStatement {
  name: string;
  text: string;
}

export const statements = {
  getRow: {
    name: 'harness-get-row',
    text: 'SELECT value, version FROM harness_rows WHERE table_name = $1 AND partition = $2 AND key = $3',
  },
  listRows: {
    name: 'harness-list-rows',
    text: 'SELECT key, value, version FROM harness_rows WHERE table_name = $1 AND partition = $2 ORDER BY position',
  },
  /**
   * The distinct partitions of a table, one index probe each (a loose index scan): the next
   * partition is the first key of the index past the previous one, so the cost grows with
   * the number of partitions, not of rows.
   */
  listPartitions: {
    name: 'harness-list-partitions',
    text: `WITH RECURSIVE partitions(partition) AS (
        (SELECT partition FROM harness_rows WHERE table_name = $1 ORDER BY partition LIMIT 1)
        UNION ALL
        SELECT (SELECT next.partition FROM harness_rows next
                WHERE next.table_name = $1 AND next.partition > previous.partition
                ORDER BY next.partition LIMIT 1)
        FROM partitions previous WHERE previous.partition IS NOT NULL
      )
      SELECT partition FROM partitions WHERE partition IS NOT NULL`,
  },
  /**
   * Writers of one partition take turns, like the operations of a lowdb partition applied on
   * one event loop: conditions are then checked against versions nobody can change before
   * COMMIT, even for rows that do not exist yet (which a row lock cannot protect). Held until
   * the end of the transaction. Two partitions whose hashes collide only wait for each other.
   */
  lockPartition: {
    name: 'harness-lock-partition',
    text: 'SELECT pg_advisory_xact_lock(hashtextextended($2, hashtextextended($1, 0)))',
  },
  readVersions: {
    name: 'harness-read-versions',
    text: 'SELECT key, version FROM harness_rows WHERE table_name = $1 AND partition = $2 AND key = ANY($3::text[])',
  },
  /** The rows of some keys, for a read-and-write under the partition's lock. */
  readRows: {
    name: 'harness-read-rows',
    text: 'SELECT key, value, version FROM harness_rows WHERE table_name = $1 AND partition = $2 AND key = ANY($3::text[]) ORDER BY position',
  },
  /**
   * A batch of puts and deletes, as parallel arrays (one element an operation): the partition's
   * lock, the conditions and the writes in one statement (migration 0005). A failed condition
   * is SQLSTATE `HR001`, its detail the key.
   */
  writeBatch: {
    name: 'harness-write-batch',
    text: 'SELECT harness_write_batch($1, $2, $3::text[], $4::text[], $5::json[], $6::boolean[], $7::bigint[]) AS versions',
  },
} satisfies Record<string, NamedStatement>;
