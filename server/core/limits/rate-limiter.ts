/**
 * A token bucket per key: `capacity` requests, refilled continuously over a minute.
 *
 * Memory is bounded by `maxKeys` whatever the callers do: past it, keys whose bucket has
 * refilled are forgotten (they lose nothing), and if that is not enough, the least recently
 * used keys are (a flood of fresh keys, e.g. client addresses, then costs the flooder its
 * oldest budgets rather than the service its memory). Each prune takes the map down to 90%
 * of the bound, so its cost is spread over the calls that follow.
 */
export class RateLimiter {
  /** In least-recently-used order: a key is moved to the end each time it is used. */
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = () => Date.now(),
    private readonly maxKeys = 10_000,
  ) {}

  /** Keys held now (tests, metrics). */
  get size(): number {
    return this.buckets.size;
  }

  /** Take one token; when none is left, how many seconds until one is. */
  take(key: string): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
    const now = this.now();
    const refillPerMillisecond = this.perMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, updatedAt: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.updatedAt) * refillPerMillisecond);
    bucket.updatedAt = now;
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) this.prune(now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerMillisecond / 1000)) };
  }

  private prune(now: number): void {
    const target = Math.floor(this.maxKeys * 0.9);
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * (this.perMinute / 60_000) >= this.perMinute) this.buckets.delete(key);
    }
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= target) break;
      this.buckets.delete(key);
    }
  }
}
