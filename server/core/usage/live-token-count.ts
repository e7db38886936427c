/** One account's tokens in this process: used by finished model calls, and of those, recorded in storage. */
interface AccountTokens {
  used: number;
  recorded: number;
}

/**
 * The tokens this process has seen each account's model calls use, counted the moment a call
 * ends, beside the part already written to the usage counters. So a budget check can add what
 * storage does not hold yet (a pass still running, a subagent's caller mid-pass) to what it
 * reads, and a running turn can follow its account's spending without reading storage again.
 * In memory and per process: other replicas' turns are seen through storage only.
 */
export class LiveTokenCount {
  private readonly accounts = new Map<string, AccountTokens>();

  private of(accountId: string): AccountTokens {
    let tokens = this.accounts.get(accountId);
    if (!tokens) {
      tokens = { used: 0, recorded: 0 };
      this.accounts.set(accountId, tokens);
    }
    return tokens;
  }

  /** A model call (or an estimate of one cut short) used `tokens`. */
  addUsed(accountId: string, tokens: number): void {
    if (tokens > 0) this.of(accountId).used += tokens;
  }

  /** `tokens` of those used reached the usage counters (or will never: a run that ended gives back what it did not record). */
  addRecorded(accountId: string, tokens: number): void {
    if (tokens > 0) this.of(accountId).recorded += tokens;
  }

  /** Everything used so far: a mark to measure later use from. */
  usedSoFar(accountId: string): number {
    return this.accounts.get(accountId)?.used ?? 0;
  }

  /** Tokens used since `mark` (from `usedSoFar`). */
  usedSince(accountId: string, mark: number): number {
    return Math.max(0, this.usedSoFar(accountId) - mark);
  }

  /** Tokens used but not yet in storage: what a read of the counters misses. */
  unrecorded(accountId: string): number {
    const tokens = this.accounts.get(accountId);
    return tokens ? Math.max(0, tokens.used - tokens.recorded) : 0;
  }
}
