import { RateLimitedError } from '../errors.js';
import type { ResumeLimits } from './resume-settings.js';

/** What a resume names: its account, and the turn it reads (or the conversation, for a replay of all its turns). */
export interface ResumeTarget {
  accountId: string;
  agentId: string;
  conversationKey: string;
  /** Absent: every turn of the conversation (a NATS replay without `turnId`). */
  turnId?: string;
}

/** An admitted resume's place; `release` gives it back (once; later calls do nothing). */
export interface ResumePlace {
  release(): void;
}

/** A resume refused is asked again after this (its places free as other readers end). */
const retryAfterSeconds = 1;

/**
 * Bounds the stream resumes and NATS replays open at once, per account and per turn: each one
 * holds a reader on the chunk log (a JetStream consumer on NATS), so without a bound one account
 * could open hundreds on one turn. Counted in this process (each replica bounds its own; a
 * client spread over N replicas gets at most N times the limits). Past a limit: `rate_limited`.
 */
export class ResumeAdmission {
  private readonly perAccount = new Map<string, number>();
  private readonly perTurn = new Map<string, number>();

  constructor(private readonly limits: ResumeLimits) {}

  /** Takes a place for one resume, or throws `RateLimitedError` naming the limit reached. */
  enter(target: ResumeTarget): ResumePlace {
    const turnKey = JSON.stringify([target.accountId, target.agentId, target.conversationKey, target.turnId ?? null]);
    const accountOpen = this.perAccount.get(target.accountId) ?? 0;
    const turnOpen = this.perTurn.get(turnKey) ?? 0;
    if (accountOpen >= this.limits.perAccount) {
      throw new RateLimitedError(`Too many open stream resumes for this account (at most ${this.limits.perAccount} at once); close one or try again shortly.`, retryAfterSeconds);
    }
    if (turnOpen >= this.limits.perTurn) {
      throw new RateLimitedError(`Too many open stream resumes of this turn (at most ${this.limits.perTurn} at once); close one or try again shortly.`, retryAfterSeconds);
    }
    this.perAccount.set(target.accountId, accountOpen + 1);
    this.perTurn.set(turnKey, turnOpen + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        decrement(this.perAccount, target.accountId);
        decrement(this.perTurn, turnKey);
      },
    };
  }

  /** Resumes open now for an account (tests, metrics). */
  openFor(accountId: string): number {
    return this.perAccount.get(accountId) ?? 0;
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left <= 0) counts.delete(key);
  else counts.set(key, left);
}
