import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '../errors.js';
import { type Logger, silentLogger } from '../logger.js';
import type { IdempotencyKeysRepository } from './idempotency-keys-repository.js';
import type { IdempotencyRecord, IdempotencyRef, StoredAnswer, StreamedTurn } from './idempotency-record.js';
import type { IdempotencySettings } from './idempotency-settings.js';

/** The key, held by this request until it answers, streams or lets go. */
export interface IdempotencyClaim {
  ref: IdempotencyRef;
  claimId: string;
  requestHash: string;
}

/** What a request with a key is to do: run (it holds the key now), or send the first request's answer or stream. */
export type IdempotencyStart = { kind: 'run'; claim: IdempotencyClaim } | { kind: 'replay-answer'; answer: StoredAnswer } | { kind: 'replay-stream'; stream: StreamedTurn };

export interface IdempotentRequestsOptions {
  repository: IdempotencyKeysRepository;
  settings: IdempotencySettings;
  now?: () => Date;
  logger?: Logger;
  /** How a retry waits between looks at a running first request (tests replace it). */
  pause?: (milliseconds: number) => Promise<unknown>;
}

/** Between two looks at a key another request holds. */
const pollMilliseconds = 50;

/**
 * `Idempotency-Key`: the first request with a key claims it (a conditional write, so of two
 * replicas racing on one key one runs); its answer, or the stream it started, is recorded and
 * every retry with the same request gets it, for `ttlSeconds`. The same key with another
 * request is refused (422). A request that fails lets go of its key, so a retry runs again.
 */
export class IdempotentRequests {
  private readonly now: () => Date;
  private readonly logger: Logger;
  private readonly pause: (milliseconds: number) => Promise<unknown>;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: IdempotentRequestsOptions) {
    this.now = options.now ?? (() => new Date());
    this.logger = options.logger ?? silentLogger;
    this.pause = options.pause ?? sleep;
  }

  /**
   * Claims the key for this request, or finds what the first request with it left. A first
   * request still running is waited for (`waitMs`), then answered 409 `idempotency_key_in_use`.
   */
  async begin(ref: IdempotencyRef, requestHash: string): Promise<IdempotencyStart> {
    const claimId = randomUUID();
    const looks = Math.max(1, Math.ceil(this.options.settings.waitMs / pollMilliseconds) + 1);
    for (let look = 0; look < looks; look += 1) {
      if (look > 0) await this.pause(pollMilliseconds);
      const now = this.now();
      const claim: IdempotencyRecord = { state: 'claimed', requestHash, createdAt: now.toISOString(), claimId, claimUntil: this.after(now, this.options.settings.claimSeconds) };
      const outcome = await this.options.repository.claim(ref, claim, now);
      if (outcome.kind === 'claimed') return { kind: 'run', claim: { ref, claimId, requestHash } };
      const { record } = outcome;
      if (record.requestHash !== requestHash) throw new IdempotencyKeyReusedError();
      if (record.state === 'answered') return { kind: 'replay-answer', answer: record.answer };
      if (record.state === 'streamed') return { kind: 'replay-stream', stream: record.stream };
    }
    throw new IdempotencyKeyInUseError();
  }

  /** Records the answer the claimed request sent; kept `ttlSeconds` from now. */
  async answered(claim: IdempotencyClaim, answer: StoredAnswer): Promise<void> {
    const now = this.now();
    await this.replace(claim, { state: 'answered', requestHash: claim.requestHash, createdAt: now.toISOString(), answer, expiresAt: this.after(now, this.options.settings.ttlSeconds) });
  }

  /** Records that the claimed chat request began streaming its turn: retries get that stream. */
  async streamed(claim: IdempotencyClaim, stream: StreamedTurn): Promise<void> {
    const now = this.now();
    await this.replace(claim, { state: 'streamed', requestHash: claim.requestHash, createdAt: now.toISOString(), stream, expiresAt: this.after(now, this.options.settings.ttlSeconds) });
  }

  /** Lets go of the key (the request failed): the next request with it runs. */
  async release(claim: IdempotencyClaim): Promise<void> {
    await this.replace(claim, undefined);
  }

  /** Deletes expired keys and abandoned claims; returns how many. */
  async sweep(): Promise<number> {
    return this.options.repository.deleteExpired(this.now());
  }

  /** Sweeps every `sweepSeconds` until `stop`. */
  start(): void {
    if (this.sweepTimer) return;
    this.sweepTimer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.logger.warn({ err: error }, 'sweeping expired idempotency keys failed'));
    }, this.options.settings.sweepSeconds * 1000);
    this.sweepTimer.unref();
  }

  stop(): void {
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  private async replace(claim: IdempotencyClaim, next: IdempotencyRecord | undefined): Promise<void> {
    const held = await this.options.repository.replaceClaim(claim.ref, claim.claimId, next);
    // The claim ran out and another request took the key: that one's answer stands.
    if (!held) this.logger.warn({ route: claim.ref.route, accountId: claim.ref.accountId }, 'an idempotency claim ran out before its request finished');
  }

  private after(now: Date, seconds: number): string {
    return new Date(now.getTime() + seconds * 1000).toISOString();
  }
}
