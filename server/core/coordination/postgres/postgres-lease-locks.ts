import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '../../logger.js';
import type { ConversationLocks } from '../conversation-locks.js';
import { KeyedMutex } from '../keyed-mutex.js';

export interface PostgresLeaseLocksOptions {
  pool: pg.Pool;
  /** This replica's name; each hold adds its own token, so a release only removes its own lease. */
  owner: string;
  leaseMs: number;
  logger: Logger;
  /** Name prefix of the leases (`conversation:`). */
  prefix: string;
}

const statements = {
  take: {
    name: 'harness-leases-take',
    text: `INSERT INTO harness_leases (name, owner, leased_until) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
      ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, leased_until = excluded.leased_until
      WHERE harness_leases.leased_until < now()
      RETURNING owner`,
  },
  renew: { name: 'harness-leases-renew', text: "UPDATE harness_leases SET leased_until = now() + $2 * interval '1 millisecond' WHERE owner = ANY($1)" },
  release: { name: 'harness-leases-release', text: 'DELETE FROM harness_leases WHERE name = $1 AND owner = $2' },
};

/** Waits between attempts on a lease another replica holds: short first, then up to this. */
const longestWaitMs = 200;

/**
 * Named locks across replicas, as lease rows (`harness_leases`): taken by an insert that may
 * only replace an expired lease, renewed by a heartbeat every third of the lease while held,
 * deleted on release. A replica that dies holding one loses it when the lease runs out.
 * Waiters of this replica queue in memory first (arrival order, one database attempt at a
 * time per key); a lease held elsewhere is retried with a short backoff. A lease row rather
 * than a session advisory lock: a lock held for a whole turn (minutes of model calls) would
 * pin one pooled connection per conversation.
 */
export class PostgresLeaseLocks implements ConversationLocks {
  private readonly local = new KeyedMutex();
  private readonly held = new Map<string, string>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly options: PostgresLeaseLocksOptions) {
    this.heartbeat = setInterval(() => void this.renew(), Math.max(100, Math.floor(options.leaseMs / 3)));
    this.heartbeat.unref();
  }

  async acquire(key: string): Promise<() => void> {
    const releaseLocal = await this.local.acquire(key);
    const name = this.options.prefix + key;
    const token = `${this.options.owner}:${randomUUID()}`;
    try {
      for (let wait = 5; ; wait = Math.min(longestWaitMs, wait * 2)) {
        const taken = await this.options.pool.query({ ...statements.take, values: [name, token, this.options.leaseMs] });
        if (taken.rowCount === 1) break;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    } catch (error) {
      releaseLocal();
      throw error;
    }
    this.held.set(token, name);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held.delete(token);
      void this.options.pool
        .query({ ...statements.release, values: [name, token] })
        .catch((error: unknown) => this.options.logger.warn({ event: 'lease', name, error: (error as Error).message }, 'could not release a lease; it ends when it runs out'))
        .finally(releaseLocal);
    };
  }

  close(): void {
    clearInterval(this.heartbeat);
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    try {
      await this.options.pool.query({ ...statements.renew, values: [[...this.held.keys()], this.options.leaseMs] });
    } catch (error) {
      this.options.logger.warn({ event: 'lease', error: (error as Error).message }, 'could not renew leases');
    }
  }
}
