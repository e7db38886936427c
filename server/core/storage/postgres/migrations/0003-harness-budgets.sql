-- Per-account limits shared by every replica on this database.
--
-- Both tables are UNLOGGED: their rows are short-lived counters, not data. A take then costs
-- no WAL flush at commit, and what a server crash loses (its unlogged tables come back empty)
-- is harmless: every budget is full again and every slot free, as after a quiet minute.
--
-- harness_rate_budgets: one token bucket per (budget, key), e.g. ('turns', <accountId>).
-- A take is one INSERT ... ON CONFLICT DO UPDATE that refills the bucket for the time since
-- updated_at, takes a token if one is there, and returns what is left and whether it took
-- one (allowed). The row lock of that statement serialises takes of one key across
-- replicas. No index besides the key, so a take's update is a heap-only update (fillfactor
-- leaves room for it). A row untouched for a minute is a full bucket, the same as no row:
-- each replica deletes such rows every minute, so the table holds only the keys used lately.
CREATE UNLOGGED TABLE harness_rate_budgets (
  budget text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  tokens double precision NOT NULL,
  updated_at timestamptz NOT NULL,
  allowed boolean NOT NULL,
  PRIMARY KEY (budget, key)
) WITH (fillfactor = 70);

-- harness_slots: the slots of a pool per key (('turns', <accountId>) for concurrent direct
-- turns), numbered 0 to capacity - 1; a row is one held slot, a lease like harness_leases:
-- holder names the replica process (and the hold), leased_until is renewed by its heartbeat,
-- the row is deleted on release. A slot whose lease ran out (its replica died) is free
-- again. Numbered rows make a take one insert that the primary key keeps exact: two
-- replicas racing for the same free slot conflict, and the loser tries another.
CREATE UNLOGGED TABLE harness_slots (
  pool text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  slot integer NOT NULL,
  holder text COLLATE "C" NOT NULL,
  leased_until timestamptz NOT NULL,
  PRIMARY KEY (pool, key, slot)
);
