/** One store JetStream kept: consecutive chunks of one turn, on the turn's replay subject. */
export interface StoredChunks {
  accountId: string;
  /** The turn's replay subject (`<root>.<accountId>.<agentId>.<conversation>.<turnId>`). */
  subject: string;
  /** The chunks' bytes (the stored message's body). */
  bytes: number;
  /** True when the store ends with the turn's finish: nothing more of the turn comes. */
  finished: boolean;
}

export interface ChunkRetentionShareOptions {
  /** The most bytes of stored turns one account may hold in the chunk stream through this process. */
  maxBytesPerAccount: number;
  /** Turns tracked in all; beyond it the account tracked with the most turns loses its oldest. */
  maxTrackedTurns: number;
  /** The stream's `max_age`: a turn stored longer ago is gone from the stream, so it is no longer counted. */
  maxAgeMilliseconds: number;
  /** Removes every stored message of a turn (a JetStream purge filtered on its subject). Never throws. */
  purge(subject: string): void;
  now?(): number;
}

interface TrackedTurn {
  subject: string;
  accountId: string;
  bytes: number;
  lastStoredAt: number;
  finished: boolean;
}

/** What one account holds in the stream through this process: its bytes, and its turns oldest first. */
interface AccountHolding {
  bytes: number;
  turns: Map<string, TrackedTurn>;
}

/** What JetStream adds to a message's body (subject, headers, its own record), roughly. */
const messageOverheadBytes = 128;

/**
 * Keeps one account from filling the chunk stream (`HARNESS_CHUNKS`, whose `max_bytes` is
 * shared by everyone and discards the oldest messages first): the process counts the bytes of
 * every store it makes, per account and per turn, and past an account's share the account
 * loses its oldest turn first (its subject is purged), so an account writing many or huge
 * streams forgets its own turns before another account's recent one is pushed out. A turn over
 * the share on its own is purged too. A turn purged while still written has its later stores
 * purged as they come (every `repurgeBytes`, and at its finish); a resume of it ends early.
 *
 * Bounded memory: at most `maxTrackedTurns` turns are tracked; past it the account tracked with
 * the most turns loses its oldest (purged: a tracked turn forgotten unpurged would let its
 * account hold more than its share). Turns older than the stream's `max_age` are gone from
 * the stream and forgotten. Per process: with N replicas an account may hold up to N shares.
 */
export class ChunkRetentionShare {
  /** Every tracked turn, first stored first (the stream's age limit removes them in this order). */
  private readonly turns = new Map<string, TrackedTurn>();
  private readonly accounts = new Map<string, AccountHolding>();
  /** Turns purged while still written, with the bytes stored since their last purge (bounded like the tracked turns). */
  private readonly purgedWriting = new Map<string, { bytes: number }>();
  /** An evicted turn still written is purged again once this much more of it is stored. */
  private readonly repurgeBytes: number;

  constructor(private readonly options: ChunkRetentionShareOptions) {
    this.repurgeBytes = Math.max(64 * 1024, Math.min(1024 * 1024, Math.floor(options.maxBytesPerAccount / 4)));
  }

  /** Counts a store JetStream kept, and purges what puts its account over the share. */
  stored(store: StoredChunks): void {
    const now = this.options.now?.() ?? Date.now();
    this.forgetExpired(now);
    const bytes = store.bytes + store.subject.length + messageOverheadBytes;
    const purged = this.purgedWriting.get(store.subject);
    if (purged !== undefined) {
      purged.bytes += bytes;
      if (store.finished || purged.bytes >= this.repurgeBytes) {
        purged.bytes = 0;
        this.options.purge(store.subject);
      }
      if (store.finished) this.purgedWriting.delete(store.subject);
      return;
    }
    let turn = this.turns.get(store.subject);
    let holding = this.accounts.get(store.accountId);
    if (holding === undefined) this.accounts.set(store.accountId, (holding = { bytes: 0, turns: new Map() }));
    if (turn === undefined) {
      turn = { subject: store.subject, accountId: store.accountId, bytes: 0, lastStoredAt: now, finished: false };
      this.turns.set(store.subject, turn);
      holding.turns.set(store.subject, turn);
    }
    turn.bytes += bytes;
    turn.lastStoredAt = now;
    turn.finished = store.finished;
    holding.bytes += bytes;
    while (holding.bytes > this.options.maxBytesPerAccount && holding.turns.size > 0) this.evict(holding.turns.values().next().value!);
    while (this.turns.size > this.options.maxTrackedTurns) this.evict(this.oldestOfHeaviestByTurns());
  }

  /** Bytes the account holds through this process (tests, diagnostics). */
  heldBytes(accountId: string): number {
    return this.accounts.get(accountId)?.bytes ?? 0;
  }

  /** Turns tracked in all (tests, diagnostics). */
  trackedTurns(): number {
    return this.turns.size;
  }

  private oldestOfHeaviestByTurns(): TrackedTurn {
    let heaviest: AccountHolding | undefined;
    for (const holding of this.accounts.values()) if (heaviest === undefined || holding.turns.size > heaviest.turns.size) heaviest = holding;
    return heaviest!.turns.values().next().value!;
  }

  /** Purges a turn from the stream and stops counting it; a turn still written is remembered so its later stores go too. */
  private evict(turn: TrackedTurn): void {
    this.untrack(turn);
    this.options.purge(turn.subject);
    if (turn.finished) return;
    this.purgedWriting.set(turn.subject, { bytes: 0 });
    if (this.purgedWriting.size > this.options.maxTrackedTurns) this.purgedWriting.delete(this.purgedWriting.keys().next().value!);
  }

  private untrack(turn: TrackedTurn): void {
    this.turns.delete(turn.subject);
    const holding = this.accounts.get(turn.accountId)!;
    holding.bytes -= turn.bytes;
    holding.turns.delete(turn.subject);
    if (holding.turns.size === 0) this.accounts.delete(turn.accountId);
  }

  /**
   * Forgets the turns the stream's age limit has removed, oldest first. It stops at the first
   * turn still kept: a turn first stored earlier but written for longer holds the ones behind
   * it for a while, which only counts them longer than needed.
   */
  private forgetExpired(now: number): void {
    for (const turn of this.turns.values()) {
      if (now - turn.lastStoredAt < this.options.maxAgeMilliseconds) return;
      this.untrack(turn);
    }
  }
}
