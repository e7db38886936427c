-- A batch of writes to one partition as one statement: one round trip to the database instead
-- of five (BEGIN, the partition's lock, the version check, the upsert, COMMIT). Called alone it
-- is a transaction of its own; called inside one (a read-and-write under the partition's lock)
-- it is part of it. The same semantics as a lowdb partition's batch:
--
-- 1. the partition's lock (the one `harness-lock-partition` takes; taking it again inside a
--    transaction that holds it is allowed), then the versions of the batch's rows, read with a
--    snapshot taken after the lock was granted (each statement of a volatile function takes
--    its own), so nobody can change them before the end of the transaction;
-- 2. every condition checked against the rows as they were before the batch; a failed one
--    raises SQLSTATE HR001 with the key as its detail, and nothing is written;
-- 3. the operations applied in order: a put sets its row to the version it had plus one (1 for
--    a new row), a delete removes it; rows deleted are deleted first, then the rows put are
--    upserted in the order they were first put since their last delete, so a row deleted and
--    put again in one batch moves to the end of the partition, as in lowdb.
--
-- Returns the version each operation left its row at (null for a delete).
CREATE FUNCTION harness_write_batch(
  p_table text,
  p_partition text,
  p_types text[],
  p_keys text[],
  p_values json[],
  p_conditioned boolean[],
  p_expected bigint[]
) RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE
  operations integer := coalesce(array_length(p_keys, 1), 0);
  versions jsonb;
  first_put jsonb := '{}';
  last_put jsonb := '{}';
  deleted text[] := '{}';
  results bigint[] := '{}';
  next_version bigint;
  i integer;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(p_partition, hashtextextended(p_table, 0)));
  SELECT coalesce(jsonb_object_agg(stored.key, stored.version), '{}') INTO versions
    FROM harness_rows stored
    WHERE stored.table_name = p_table AND stored.partition = p_partition AND stored.key = ANY(p_keys);
  FOR i IN 1 .. operations LOOP
    IF p_conditioned[i] AND (versions ->> p_keys[i])::bigint IS DISTINCT FROM p_expected[i] THEN
      RAISE EXCEPTION 'condition failed on key %', p_keys[i] USING ERRCODE = 'HR001', DETAIL = p_keys[i];
    END IF;
  END LOOP;
  FOR i IN 1 .. operations LOOP
    IF p_types[i] = 'delete' THEN
      versions := versions - p_keys[i];
      first_put := first_put - p_keys[i];
      last_put := last_put - p_keys[i];
      deleted := deleted || p_keys[i];
      results := results || NULL::bigint;
    ELSE
      next_version := coalesce((versions ->> p_keys[i])::bigint, 0) + 1;
      versions := versions || jsonb_build_object(p_keys[i], next_version);
      IF NOT first_put ? p_keys[i] THEN
        first_put := first_put || jsonb_build_object(p_keys[i], i);
      END IF;
      last_put := last_put || jsonb_build_object(p_keys[i], i);
      results := results || next_version;
    END IF;
  END LOOP;
  IF cardinality(deleted) > 0 THEN
    DELETE FROM harness_rows stored
      WHERE stored.table_name = p_table AND stored.partition = p_partition AND stored.key = ANY(deleted);
  END IF;
  INSERT INTO harness_rows (table_name, partition, key, value, version)
    SELECT p_table, p_partition, put.key, p_values[(last_put ->> put.key)::integer], (versions ->> put.key)::bigint
    FROM jsonb_each_text(first_put) AS put(key, first_index)
    ORDER BY put.first_index::integer
    ON CONFLICT (table_name, partition, key) DO UPDATE SET value = excluded.value, version = excluded.version;
  RETURN results;
END
$$;
