export interface FairDeliverySchedulerOptions<Job> {
  /** Runs one job (one attempt of one delivery); never rejects in practice (a rejection only frees its slot). */
  run(job: Job): Promise<void>;
  /** Jobs running at once in this process, every account together. */
  concurrency: number;
  /** Jobs of one account running at once. */
  concurrencyPerAccount: number;
  /** Jobs one account may have held in memory (waiting, retrying later or running); past it, `offer` declines. */
  heldPerAccount: number;
  accountOf(job: Job): string;
  /** The job's identity: a job offered again while one with its key is held is the same job. */
  keyOf(job: Job): string;
  /**
   * An account whose share was full (an offer was declined) has room again: at most half of its
   * share is held. Its declined jobs wait in storage; this is where they are read again and
   * offered. The scheduler is not idle until the returned promise settles, and calls it once at
   * a time per account: an offer declined meanwhile is looked for again when it settles. A
   * rejection means the jobs were not read: the next job of the account to end asks again.
   */
  onRoom?(accountId: string): Promise<void> | void;
}

interface AccountShare<Job> {
  /** Due jobs, oldest first. */
  queue: Job[];
  queued: Set<string>;
  running: Set<string>;
  /** Jobs waiting on a timer, by key. */
  delayed: Map<string, { timer: NodeJS.Timeout; at: number; job: Job }>;
  /** Keys offered again, due, while running: queued again when the run ends. */
  again: Set<string>;
  /** Every key held, in any of the above: what the share bounds. */
  held: Set<string>;
  /** An offer was declined since the share last had room (or since its refill began). */
  declined: boolean;
  /** `onRoom` is under way for this account. */
  refilling: boolean;
}

/**
 * The in-memory pacing of completion webhook attempts, fair across accounts: each account has
 * its own queue and its own share of the slots (`concurrencyPerAccount`), and free slots go to
 * the accounts in turn (round-robin), so one account's slow or unanswering receiver and its
 * long queue never delay another account's delivery by more than one free slot. What an account
 * holds in memory is bounded (`heldPerAccount`): a declined job is not lost, its delivery
 * stays `pending` in storage and is read again through `onRoom`.
 */
export class FairDeliveryScheduler<Job> {
  private readonly accounts = new Map<string, AccountShare<Job>>();
  /** Accounts with queued jobs, in the order they are served. */
  private readonly turns: string[] = [];
  private running = 0;
  /** `onRoom` calls under way, every account together. */
  private refilling = 0;
  private readonly idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(private readonly options: FairDeliverySchedulerOptions<Job>) {}

  /**
   * Holds a job, to run now (as a slot frees) or after `delayMs`. False when the account's share
   * is full: the job is not held (its delivery waits in storage until `onRoom`).
   */
  offer(job: Job, delayMs = 0): boolean {
    if (this.stopped) return false;
    const accountId = this.options.accountOf(job);
    const key = this.options.keyOf(job);
    const share = this.shareOf(accountId);
    if (share.held.has(key)) return this.offerHeld(accountId, share, job, key, delayMs);
    if (share.held.size >= this.options.heldPerAccount) {
      share.declined = true;
      this.forgetIfEmpty(accountId, share);
      return false;
    }
    share.held.add(key);
    if (delayMs > 0) this.delay(accountId, share, job, key, delayMs);
    else this.due(accountId, share, job, key);
    return true;
  }

  /** What one account holds now (tests, metrics). */
  heldBy(accountId: string): number {
    return this.accounts.get(accountId)?.held.size ?? 0;
  }

  /** Resolves when no job is queued or running and no `onRoom` is under way; jobs waiting on a timer do not count. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Takes no new jobs, forgets the waiting ones (their deliveries stay in storage) and waits for the running ones. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const share of this.accounts.values()) {
      for (const { timer } of share.delayed.values()) clearTimeout(timer);
      share.delayed.clear();
      share.queue.length = 0;
      share.queued.clear();
      share.again.clear();
    }
    this.turns.length = 0;
    await this.idle();
  }

  private offerHeld(accountId: string, share: AccountShare<Job>, job: Job, key: string, delayMs: number): boolean {
    // Queued: it runs sooner than asked anyway.
    if (share.queued.has(key)) return true;
    const waiting = share.delayed.get(key);
    if (waiting !== undefined) {
      if (waiting.at <= Date.now() + delayMs) return true;
      clearTimeout(waiting.timer);
      share.delayed.delete(key);
    }
    if (delayMs > 0) this.delay(accountId, share, job, key, delayMs);
    else this.due(accountId, share, job, key);
    return true;
  }

  private shareOf(accountId: string): AccountShare<Job> {
    let share = this.accounts.get(accountId);
    if (share === undefined) {
      share = { queue: [], queued: new Set(), running: new Set(), delayed: new Map(), again: new Set(), held: new Set(), declined: false, refilling: false };
      this.accounts.set(accountId, share);
    }
    return share;
  }

  private delay(accountId: string, share: AccountShare<Job>, job: Job, key: string, delayMs: number): void {
    const timer = setTimeout(() => {
      share.delayed.delete(key);
      if (!this.stopped) this.due(accountId, share, job, key);
    }, delayMs);
    timer.unref();
    share.delayed.set(key, { timer, at: Date.now() + delayMs, job });
  }

  /** The job is due: queued, unless it is queued already or running (then it runs once more after). */
  private due(accountId: string, share: AccountShare<Job>, job: Job, key: string): void {
    if (share.queued.has(key)) return;
    if (share.running.has(key)) {
      share.again.add(key);
      return;
    }
    share.queue.push(job);
    share.queued.add(key);
    if (share.queue.length === 1) this.turns.push(accountId);
    this.pump();
  }

  /** Starts jobs while slots are free, one account after another; an account at its share waits its next turn. */
  private pump(): void {
    let skipped = 0;
    while (this.running < this.options.concurrency && skipped < this.turns.length) {
      const accountId = this.turns.shift()!;
      const share = this.accounts.get(accountId);
      if (share === undefined || share.queue.length === 0) continue;
      if (share.running.size >= this.options.concurrencyPerAccount) {
        this.turns.push(accountId);
        skipped += 1;
        continue;
      }
      skipped = 0;
      const job = share.queue.shift()!;
      if (share.queue.length > 0) this.turns.push(accountId);
      const key = this.options.keyOf(job);
      share.queued.delete(key);
      this.start(accountId, share, job, key);
    }
  }

  private start(accountId: string, share: AccountShare<Job>, job: Job, key: string): void {
    this.running += 1;
    share.running.add(key);
    void this.options
      .run(job)
      .catch(() => undefined)
      .finally(() => {
        this.running -= 1;
        share.running.delete(key);
        if (share.again.delete(key) && !this.stopped) this.due(accountId, share, job, key);
        if (!share.queued.has(key) && !share.delayed.has(key)) share.held.delete(key);
        this.roomCheck(accountId, share);
        this.pump();
        this.wakeIdleWaiters();
      });
  }

  /**
   * A declined account with room again gets one `onRoom` at a time. Its `declined` is cleared
   * when the read starts, so an offer declined while it reads (a delivery written after the read
   * began, not in what it returns) sets it again, and is looked for once the read has settled;
   * without this, that delivery waited for the account's next job to end, or for a restart.
   */
  private roomCheck(accountId: string, share: AccountShare<Job>): void {
    if (share.declined && !share.refilling && share.held.size <= Math.floor(this.options.heldPerAccount / 2) && !this.stopped && this.options.onRoom) {
      share.declined = false;
      share.refilling = true;
      this.refilling += 1;
      const onRoom = this.options.onRoom;
      void new Promise<void>((resolve) => resolve(onRoom(accountId)))
        .then(
          () => ({ read: true }),
          () => ({ read: false }),
        )
        .then(({ read }) => {
          share.refilling = false;
          this.refilling -= 1;
          if (read) this.roomCheck(accountId, share);
          // Not read: its jobs still wait; the account's next job to end asks again (not now, which could spin on a failing store).
          else share.declined = !this.stopped;
          this.forgetIfEmpty(accountId, share);
          this.wakeIdleWaiters();
        });
    }
    this.forgetIfEmpty(accountId, share);
  }

  private forgetIfEmpty(accountId: string, share: AccountShare<Job>): void {
    if (share.held.size === 0 && !share.declined && !share.refilling) this.accounts.delete(accountId);
  }

  private wakeIdleWaiters(): void {
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private isIdle(): boolean {
    return this.running === 0 && this.turns.length === 0 && this.refilling === 0;
  }
}
