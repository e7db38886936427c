-- Every row of every harness table, in one SQL table. Harness table names come from the
-- stage (harness-<stage>-agents...), so one SQL table per harness table would mean DDL at run
-- time for names we do not control; here the schema is fixed and the harness table is the
-- first column of the primary key, so each one is a contiguous range of the index.
--
-- The primary key (table_name, partition, key) is the index behind every lookup: get (all
-- three), list and a write's version check (the first two), listPartitions (a loose scan
-- over the first two). "C" collation: byte order, the same on every server and cheaper to
-- compare than a locale's.
--
-- value is json, not jsonb: the text is kept exactly as written (key order, which decides
-- what a replayed conversation sends to the model, and \u0000, which jsonb refuses); rows
-- are only ever read whole, never queried inside.
--
-- position keeps the order rows were created in, which is the order lowdb lists them in: an
-- update keeps a row's place, a delete and a new put move it to the end.
CREATE TABLE harness_rows (
  table_name text COLLATE "C" NOT NULL,
  partition text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value json NOT NULL,
  version bigint NOT NULL,
  position bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (table_name, partition, key)
);
