-- Coordination between service replicas sharing this database.
--
-- harness_jobs: the durable background work queue (async requests, continuations, channel
-- deliveries). A job is named by its queue and a key derived from the ids it carries, so
-- queueing the same work twice (a boot recovery scan while another replica runs it) keeps
-- one row. A replica claims ready rows with FOR UPDATE SKIP LOCKED and holds them by a lease
-- (owner, leased_until) that a heartbeat renews; a row whose lease ran out belongs to a dead
-- (or stalled) replica and is claimed again. The row is deleted once its handler finished.
-- id keeps claims in arrival order.
CREATE TABLE harness_jobs (
  queue text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  job json NOT NULL,
  owner text COLLATE "C",
  leased_until timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  id bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (queue, key)
);
CREATE INDEX harness_jobs_by_arrival ON harness_jobs (queue, id);

-- harness_leases: named locks with an expiry (the per-conversation turn lock). Taken by an
-- insert that may replace only an expired lease, renewed by the holder's heartbeat, deleted
-- on release; a holder that died loses it when leased_until passes.
CREATE TABLE harness_leases (
  name text COLLATE "C" PRIMARY KEY,
  owner text COLLATE "C" NOT NULL,
  leased_until timestamptz NOT NULL
);
