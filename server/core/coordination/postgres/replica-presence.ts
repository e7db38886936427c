import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Logger } from '../../logger.js';

/**
 * The advisory-lock namespace of presence locks (the two-key form, which PostgreSQL keeps apart
 * from the one-key locks of storage partitions and migrations).
 */
export const presenceLockNamespace = 0x48617270; // "Harp"

/** `pg_advisory_lock(namespace, hashtext(owner))`: taken by the owner's process, seen by all. */
const statements = {
  lock: 'SELECT pg_advisory_lock($1, hashtext($2))',
};

export interface ReplicaPresenceOptions {
  connectionString: string;
  /** The process's owner name, the prefix of every lease it takes. */
  owner: string;
  logger: Logger;
}

const longestReconnectWaitMs = 5_000;

/**
 * This process's presence in the shared database: a session advisory lock keyed by its owner
 * name, held on a connection of its own for as long as the process lives. When the process
 * dies (kill -9, a crashed machine whose socket the kernel closes) PostgreSQL ends its session
 * and the lock with it, so other replicas can tell a dead holder's leases from a live one's at
 * once instead of waiting for the leases to run out (see `DeadOwnerSweeper`).
 *
 * A lost connection is opened again and the lock taken again; meanwhile other replicas may take
 * this process's work over, which at-least-once delivery with idempotent handlers allows.
 */
export class ReplicaPresence {
  private client: pg.Client | undefined;
  private closed = false;
  private readonly firstLock: Promise<void>;

  constructor(private readonly options: ReplicaPresenceOptions) {
    this.firstLock = this.keepPresent();
    // The start awaits it; a failure here is reported there.
    this.firstLock.catch(() => undefined);
  }

  /** Resolves once the lock is held the first time (before the process takes any lease). */
  ready(): Promise<void> {
    return this.firstLock;
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Takes the lock; resolves then, and takes it again on a new connection whenever the old one is lost. */
  private async keepPresent(): Promise<void> {
    const { lost } = await this.lock();
    void this.reconnectAfter(lost);
  }

  private async reconnectAfter(firstLost: Promise<void>): Promise<void> {
    let lost = firstLost;
    while (!this.closed) {
      await lost;
      if (this.closed) return;
      this.options.logger.warn({ event: 'presence' }, "the presence connection to PostgreSQL was lost; other replicas may take this replica's work over until it is back");
      for (let wait = 100; ; wait = Math.min(longestReconnectWaitMs, wait * 2)) {
        if (this.closed) return;
        try {
          ({ lost } = await this.lock());
          this.options.logger.info({ event: 'presence' }, 'the presence connection to PostgreSQL is back');
          break;
        } catch {
          await sleep(wait);
        }
      }
    }
  }

  /** Connects and takes the lock; `lost` resolves when that connection is lost. */
  private async lock(): Promise<{ lost: Promise<void> }> {
    const client = new pg.Client({ connectionString: this.options.connectionString, application_name: 'harness-presence' });
    let markLost!: () => void;
    const lost = new Promise<void>((resolve) => (markLost = resolve));
    client.on('error', () => markLost());
    client.on('end', () => markLost());
    await client.connect();
    try {
      await client.query(statements.lock, [presenceLockNamespace, this.options.owner]);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return { lost };
    }
    this.client = client;
    return { lost };
  }
}
