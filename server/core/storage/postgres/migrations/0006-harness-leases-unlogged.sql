-- The conversation locks are leases that live as long as a turn, like the rows of
-- harness_slots and harness_running_turns, which are UNLOGGED: a lease written to the WAL and
-- flushed at commit cost every turn a disk sync to take the lock and another to give it back
-- (0.8 ms of the 1.2 ms a take took, measured). What a server crash loses with an unlogged
-- table (its rows are gone after the restart) is harmless: every connection of every replica
-- ended with the crash, and a turn whose lease vanished finds its conversation write refused
-- if another turn wrote meanwhile, as with a lease lost to a stall (the writes stay
-- conditional on the version the turn loaded).
ALTER TABLE harness_leases SET UNLOGGED;
