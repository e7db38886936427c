-- The turns running now, one row per turn, so a cancel request received by any replica finds
-- the turn and the replica that runs it hears of it.
--
-- UNLOGGED like harness_slots: a row lives as long as its turn (seconds to minutes). What a
-- server crash loses is harmless: the turns of that moment cannot be cancelled from another
-- replica, and they still end on their own.
--
-- owner names the replica process; leased_until is renewed by that process while the turn
-- runs (a row whose lease ran out belongs to a dead replica: it is not running any more).
-- cancel_requested_at is the durable cancel request: the owner hears of it through
-- NOTIFY harness_turn_cancel (payload: turn_id), and by re-reading its rows when it renews them,
-- in case a notification was lost.
CREATE UNLOGGED TABLE harness_running_turns (
  turn_id text COLLATE "C" PRIMARY KEY,
  event_id text COLLATE "C" NOT NULL,
  account_id text COLLATE "C" NOT NULL,
  agent_id text COLLATE "C" NOT NULL,
  conversation_key text COLLATE "C" NOT NULL,
  owner text COLLATE "C" NOT NULL,
  leased_until timestamptz NOT NULL,
  cancel_requested_at timestamptz
);

CREATE INDEX harness_running_turns_event ON harness_running_turns (account_id, event_id);
CREATE INDEX harness_running_turns_conversation ON harness_running_turns (account_id, agent_id, conversation_key);
