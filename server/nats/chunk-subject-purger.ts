import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from '../core/logger.js';
import { replayStreamName } from './stream-replay.js';

export interface ChunkSubjectPurgerOptions {
  /** The live connection, when there is one. */
  connection(): NatsConnection | undefined;
  logger: Logger;
  /** Purges sent at once. Default 4. */
  maxInFlight?: number;
  /** Subjects waiting to be purged; beyond it the oldest wait is dropped (the stream's own limits still hold). Default 10,000. */
  maxQueued?: number;
}

/** How often a failing purge is logged at most. */
const warnEveryMilliseconds = 60_000;

/**
 * Purges turn subjects from the chunk stream (`HARNESS_CHUNKS`), a few at a time: the
 * retention share asks for one per turn it gives up, and must never wait for it. Subjects asked
 * for while NATS is unreachable wait (bounded) and go with the next request once it is back.
 */
export class ChunkSubjectPurger {
  /** Subjects waiting, oldest first (a Set: a subject asked for twice is purged once). */
  private readonly waiting = new Set<string>();
  private inFlight = 0;
  private manager: { connection: NatsConnection; manager: Promise<JetStreamManager> } | undefined;
  private readonly idleWaiters: (() => void)[] = [];
  private lastWarning = 0;

  constructor(private readonly options: ChunkSubjectPurgerOptions) {}

  /** Queues a purge of every message stored on `subject`. */
  purge(subject: string): void {
    this.waiting.delete(subject);
    this.waiting.add(subject);
    const limit = this.options.maxQueued ?? 10_000;
    if (this.waiting.size > limit) this.waiting.delete(this.waiting.values().next().value!);
    this.pump();
  }

  /** Resolves once no purge waits or runs (tests, shutdown); purges that cannot be sent (no connection) do not hold it. */
  idle(): Promise<void> {
    if (this.inFlight === 0 && (this.waiting.size === 0 || this.connected() === undefined)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private connected(): NatsConnection | undefined {
    const connection = this.options.connection();
    return connection === undefined || connection.isClosed() ? undefined : connection;
  }

  private pump(): void {
    const connection = this.connected();
    const maxInFlight = this.options.maxInFlight ?? 4;
    while (connection !== undefined && this.inFlight < maxInFlight && this.waiting.size > 0) {
      const subject = this.waiting.values().next().value!;
      this.waiting.delete(subject);
      this.inFlight += 1;
      void this.purgeNow(connection, subject).finally(() => {
        this.inFlight -= 1;
        this.pump();
      });
    }
    if (this.inFlight === 0 && (this.waiting.size === 0 || connection === undefined)) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private async purgeNow(connection: NatsConnection, subject: string): Promise<void> {
    try {
      if (this.manager?.connection !== connection) this.manager = { connection, manager: jetstreamManager(connection, { checkAPI: false }) };
      const manager = await this.manager.manager.catch((error: unknown) => {
        this.manager = undefined;
        throw error;
      });
      await manager.streams.purge(replayStreamName, { filter: subject });
    } catch (error) {
      const now = Date.now();
      if (now - this.lastWarning < warnEveryMilliseconds) return;
      this.lastWarning = now;
      this.options.logger.warn({ component: 'nats-gateway', error: (error as Error).message }, 'could not purge a turn from the chunk stream; the stream discards its oldest chunks once full');
    }
  }
}
