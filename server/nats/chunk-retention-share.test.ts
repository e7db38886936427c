import { describe, expect, it } from 'vitest';
import { ChunkRetentionShare, type ChunkRetentionShareOptions } from './chunk-retention-share.js';

const kib = 1024;

/** A share whose purges are recorded, on a clock the test moves. */
function shareFor(options: Partial<ChunkRetentionShareOptions> = {}) {
  const purged: string[] = [];
  const clock = { now: 0 };
  const share = new ChunkRetentionShare({
    maxBytesPerAccount: 100 * kib,
    maxTrackedTurns: 1_000,
    maxAgeMilliseconds: 60_000,
    purge: (subject) => purged.push(subject),
    now: () => clock.now,
    ...options,
  });
  const store = (accountId: string, turn: string, bytes: number, finished = true) => share.stored({ accountId, subject: `harness.replay.${accountId}.agent.c.${turn}`, bytes, finished });
  const subject = (accountId: string, turn: string) => `harness.replay.${accountId}.agent.c.${turn}`;
  return { share, purged, clock, store, subject };
}

describe('ChunkRetentionShare', () => {
  it('purges the oldest turns of the account past its share, and never another account’s', () => {
    const { share, purged, store, subject } = shareFor();
    store('victim', 'turn_v', 10 * kib);
    for (let index = 0; index < 30; index += 1) store('attacker', `turn_${index}`, 10 * kib);
    // 30 turns of 10 KiB (plus overhead) against a 100 KiB share: the oldest go, in order.
    expect(purged[0]).toBe(subject('attacker', 'turn_0'));
    expect(purged).toEqual(purged.map((_, index) => subject('attacker', `turn_${index}`)));
    expect(purged).not.toContain(subject('victim', 'turn_v'));
    expect(purged).not.toContain(subject('attacker', 'turn_29'));
    expect(share.heldBytes('attacker')).toBeLessThanOrEqual(100 * kib);
    expect(share.heldBytes('victim')).toBeGreaterThan(10 * kib);
  });

  it('counts a turn’s stores together, and purges a turn that alone passes the share, then its later stores as they come and at its finish', () => {
    const { share, purged, store, subject } = shareFor();
    for (let index = 0; index < 3; index += 1) store('attacker', 'turn_huge', 40 * kib, false);
    expect(purged).toEqual([subject('attacker', 'turn_huge')]);
    expect(share.heldBytes('attacker')).toBe(0);
    // Later stores of the purged turn are counted apart and purged again every 64 KiB (a quarter of the share, at least 64 KiB).
    store('attacker', 'turn_huge', 40 * kib, false);
    store('attacker', 'turn_huge', 40 * kib, false);
    expect(purged).toHaveLength(2);
    store('attacker', 'turn_huge', 1 * kib, true);
    expect(purged).toHaveLength(3);
    // After its finish, the subject is a turn like any other again (a new turn id never reuses it).
    expect(share.heldBytes('attacker')).toBe(0);
  });

  it('keeps at most maxTrackedTurns turns: the account with the most loses its oldest', () => {
    const { share, purged, store, subject } = shareFor({ maxTrackedTurns: 10 });
    store('victim', 'turn_v', 100);
    for (let index = 0; index < 20; index += 1) store('attacker', `turn_${index}`, 100);
    expect(share.trackedTurns()).toBe(10);
    expect(purged).toEqual(Array.from({ length: 11 }, (_, index) => subject('attacker', `turn_${index}`)));
  });

  it('forgets, unpurged, the turns the stream’s age limit has removed', () => {
    const { share, purged, clock, store } = shareFor();
    for (let index = 0; index < 9; index += 1) store('account', `turn_${index}`, 10 * kib);
    clock.now = 61_000;
    store('account', 'turn_new', 10 * kib);
    expect(share.trackedTurns()).toBe(1);
    expect(purged).toEqual([]);
  });
});
