import pg from 'pg';
import type { Logger } from '../../logger.js';
import { type CancelTarget, InMemoryRunningTurns, type RunningTurn, type RunningTurns } from '../running-turns.js';

export interface PostgresRunningTurnsOptions {
  pool: pg.Pool;
  /** For the one connection that listens to cancel notifications (a pooled one cannot hold LISTEN). */
  connectionString: string;
  /** This replica process (the same owner as its leases). */
  owner: string;
  leaseMs: number;
  /** How often this replica renews its running turns' rows and reads their cancel requests (the fallback for a lost notification). */
  pollMs: number;
  logger: Logger;
}

const channel = 'harness_turn_cancel';

const statements = {
  insert: {
    name: 'harness-running-turns-insert',
    text: `INSERT INTO harness_running_turns (turn_id, event_id, account_id, agent_id, conversation_key, owner, leased_until)
      VALUES ($1, $2, $3, $4, $5, $6, now() + $7 * interval '1 millisecond') ON CONFLICT (turn_id) DO NOTHING`,
  },
  remove: { name: 'harness-running-turns-remove', text: 'DELETE FROM harness_running_turns WHERE turn_id = $1' },
  renew: {
    name: 'harness-running-turns-renew',
    text: `UPDATE harness_running_turns SET leased_until = now() + $2 * interval '1 millisecond' WHERE turn_id = ANY($1)
      RETURNING turn_id, cancel_requested_at IS NOT NULL AS cancelled`,
  },
  cancelByEvent: {
    name: 'harness-running-turns-cancel-event',
    text: `UPDATE harness_running_turns SET cancel_requested_at = coalesce(cancel_requested_at, now())
      WHERE account_id = $1 AND event_id = $2 AND leased_until > now()
      RETURNING turn_id, event_id, account_id, agent_id, conversation_key`,
  },
  cancelByConversation: {
    name: 'harness-running-turns-cancel-conversation',
    text: `UPDATE harness_running_turns SET cancel_requested_at = coalesce(cancel_requested_at, now())
      WHERE account_id = $1 AND agent_id = $2 AND conversation_key = $3 AND leased_until > now()
      RETURNING turn_id, event_id, account_id, agent_id, conversation_key`,
  },
  findByEvent: {
    name: 'harness-running-turns-find-event',
    text: `SELECT turn_id, event_id, account_id, agent_id, conversation_key FROM harness_running_turns
      WHERE account_id = $1 AND event_id = $2 AND leased_until > now() LIMIT 1`,
  },
  findByConversation: {
    name: 'harness-running-turns-find-conversation',
    text: `SELECT turn_id, event_id, account_id, agent_id, conversation_key FROM harness_running_turns
      WHERE account_id = $1 AND agent_id = $2 AND conversation_key = $3 AND leased_until > now() LIMIT 1`,
  },
};

interface TurnRow {
  turn_id: string;
  event_id: string;
  account_id: string;
  agent_id: string;
  conversation_key: string;
}

/**
 * Running turns of replicas sharing one PostgreSQL database (`harness_running_turns`). A turn
 * inserts its row as it starts (without making the turn wait) and deletes it at its end. A
 * cancel request marks the row (`cancel_requested_at`, the durable request) and sends
 * `NOTIFY harness_turn_cancel`; the replica that runs the turn listens on one connection and
 * aborts it at once. Every `pollMs` while it runs turns, a replica renews its rows and, in
 * the same statement, reads their marks: a notification lost while the listening connection
 * was down is acted on at the next renewal.
 */
export class PostgresRunningTurns implements RunningTurns {
  private readonly local = new InMemoryRunningTurns();
  private readonly inserts = new Map<string, Promise<unknown>>();
  private readonly timer: NodeJS.Timeout;
  private listener: pg.Client | undefined;
  private closed = false;

  constructor(private readonly options: PostgresRunningTurnsOptions) {
    this.timer = setInterval(() => void this.renew(), options.pollMs);
    this.timer.unref();
  }

  /** Listen for cancel requests (the rows an earlier process left are ended by `DeadOwnerSweeper`). */
  async start(): Promise<void> {
    await this.listen();
  }

  register(turn: RunningTurn, abort: () => void): () => void {
    const unregister = this.local.register(turn, abort);
    const { pool, owner, leaseMs, logger } = this.options;
    const inserted = pool
      .query({ ...statements.insert, values: [turn.turnId, turn.eventId, turn.accountId, turn.agentId, turn.conversationKey, owner, leaseMs] })
      .catch((error: unknown) => logger.warn({ event: 'running-turns', turnId: turn.turnId, error: (error as Error).message }, 'could not record a running turn; other replicas cannot cancel it'));
    this.inserts.set(turn.turnId, inserted);
    return () => {
      unregister();
      this.inserts.delete(turn.turnId);
      // After the insert, so a short turn does not leave its row behind.
      void inserted
        .then(() => pool.query({ ...statements.remove, values: [turn.turnId] }))
        .catch((error: unknown) => logger.warn({ event: 'running-turns', turnId: turn.turnId, error: (error as Error).message }, 'could not delete a running turn; its lease runs out'));
    };
  }

  async requestCancel(target: CancelTarget): Promise<RunningTurn | undefined> {
    // A turn of this replica stops without a round trip (its row goes with it).
    const here = this.local.find(target);
    if (here) {
      here.abort();
      return here.turn;
    }
    const marked = await this.options.pool.query<TurnRow>(
      'eventId' in target
        ? { ...statements.cancelByEvent, values: [target.accountId, target.eventId] }
        : { ...statements.cancelByConversation, values: [target.accountId, target.agentId, target.conversationKey] },
    );
    const row = marked.rows[0];
    if (!row) return undefined;
    await this.options.pool.query('SELECT pg_notify($1, $2)', [channel, row.turn_id]);
    return { turnId: row.turn_id, eventId: row.event_id, accountId: row.account_id, agentId: row.agent_id, conversationKey: row.conversation_key };
  }

  async findRunning(target: CancelTarget): Promise<RunningTurn | undefined> {
    const here = this.local.find(target);
    if (here) return here.turn;
    const found = await this.options.pool.query<TurnRow>(
      'eventId' in target
        ? { ...statements.findByEvent, values: [target.accountId, target.eventId] }
        : { ...statements.findByConversation, values: [target.accountId, target.agentId, target.conversationKey] },
    );
    const row = found.rows[0];
    return row ? { turnId: row.turn_id, eventId: row.event_id, accountId: row.account_id, agentId: row.agent_id, conversationKey: row.conversation_key } : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.allSettled(this.inserts.values());
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.options.connectionString });
    client.on('notification', (message) => {
      if (message.channel === channel && message.payload) this.local.abortLocal(message.payload);
    });
    client.on('error', (error) => {
      this.options.logger.warn({ event: 'running-turns', error: error.message }, 'the cancel listener lost its connection; reconnecting (cancels are read at each renewal meanwhile)');
      if (this.listener === client) this.listener = undefined;
      void client.end().catch(() => undefined);
      setTimeout(() => void this.listen().catch(() => undefined), 1_000).unref();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
      this.listener = client;
    } catch (error) {
      this.options.logger.warn({ event: 'running-turns', error: (error as Error).message }, 'could not listen for cancel requests; reading them at each renewal instead');
      await client.end().catch(() => undefined);
      setTimeout(() => void this.listen().catch(() => undefined), 1_000).unref();
    }
  }

  private async renew(): Promise<void> {
    const turnIds = this.local.turnIds();
    if (turnIds.length === 0) return;
    try {
      const renewed = await this.options.pool.query<{ turn_id: string; cancelled: boolean }>({ ...statements.renew, values: [turnIds, this.options.leaseMs] });
      for (const row of renewed.rows) if (row.cancelled) this.local.abortLocal(row.turn_id);
    } catch (error) {
      this.options.logger.warn({ event: 'running-turns', error: (error as Error).message }, 'could not renew running turns');
    }
  }
}
