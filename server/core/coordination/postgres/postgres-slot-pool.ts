import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '../../logger.js';
import { onlyOnce, type SlotOutcome, type SlotPool } from '../../limits/slot-pool.js';

/**
 * One attempt at a slot: a free slot (no row, or a row whose lease ran out) chosen at random,
 * so replicas racing for one pool rarely pick the same; its insert, which the primary key
 * makes exact (a slot taken meanwhile by another replica conflicts and is not replaced while
 * its lease runs); how many were free; how many are held (for the refusal's message).
 */
const take = {
  name: 'harness-slots-take',
  text: `WITH free AS (
      SELECT candidate.slot FROM generate_series(0, $3::integer - 1) AS candidate(slot)
      WHERE NOT EXISTS (SELECT 1 FROM harness_slots held WHERE held.pool = $1 AND held.key = $2 AND held.slot = candidate.slot AND held.leased_until > now())
      ORDER BY random() LIMIT 1
    ), taken AS (
      INSERT INTO harness_slots (pool, key, slot, holder, leased_until)
      SELECT $1, $2, free.slot, $4, now() + $5 * interval '1 millisecond' FROM free
      ON CONFLICT (pool, key, slot) DO UPDATE SET holder = excluded.holder, leased_until = excluded.leased_until
      WHERE harness_slots.leased_until <= now()
      RETURNING slot
    )
    SELECT (SELECT slot FROM taken) AS slot, (SELECT count(*) FROM free)::integer AS free,
      (SELECT count(*) FROM harness_slots WHERE pool = $1 AND key = $2 AND leased_until > now())::integer AS active`,
};

const release = { name: 'harness-slots-release', text: 'DELETE FROM harness_slots WHERE pool = $1 AND key = $2 AND slot = $3 AND holder = $4' };

export interface PostgresSlotPoolOptions {
  pool: pg.Pool;
  /** The pool's name (`turns`). */
  name: string;
  capacity: number;
  /** This replica process's name; each hold adds its own token, so a release removes only its own row. */
  owner: string;
  leaseMs: number;
  /** The holds this replica's heartbeat renews (shared by its slot pools). */
  held: Set<string>;
  logger: Logger;
}

/**
 * Slots shared by every replica: a held slot is a lease row in `harness_slots`, renewed by
 * the replica's heartbeat while held and deleted when given back; a killed replica's slots
 * are free again once their lease runs out.
 */
export class PostgresSlotPool implements SlotPool {
  constructor(private readonly options: PostgresSlotPoolOptions) {}

  async take(key: string): Promise<SlotOutcome> {
    const { pool, name, capacity, owner, leaseMs, held, logger } = this.options;
    const holder = `${owner}:${randomUUID()}`;
    // A lost race means the free slot chosen was taken by another replica meanwhile: the next
    // attempt sees that row. Bounded: a pool that keeps filling under us counts as full.
    for (let attempt = 0; attempt <= capacity; attempt += 1) {
      const result = await pool.query<{ slot: number | null; free: number; active: number }>({ ...take, values: [name, key, capacity, holder, leaseMs] });
      const row = result.rows[0]!;
      if (row.slot === null) {
        if (row.free === 0) return { taken: false, active: row.active };
        continue;
      }
      const slot = row.slot;
      held.add(holder);
      return {
        taken: true,
        giveBack: onlyOnce(() => {
          held.delete(holder);
          pool.query({ ...release, values: [name, key, slot, holder] }).catch((error: unknown) => {
            logger.warn({ event: 'slot', name, error: (error as Error).message }, 'could not give back a slot; it is free again when its lease runs out');
          });
        }),
      };
    }
    return { taken: false, active: capacity };
  }
}
