import type pg from 'pg';
import { type RateBudget, type RateOutcome, retryAfterSeconds } from '../../limits/rate-budget.js';

/**
 * The bucket after refilling it for the time since its last take: `$3` tokens a minute, at
 * most `$3`. `now()` is the statement's start; a statement that waited for the row lock
 * behind a later one finds `updated_at` ahead of it and refills nothing (never negative), and
 * `updated_at` never goes back, so no time is counted twice.
 */
const refilled = `least($3::double precision, bucket.tokens + $3::double precision * greatest(0, extract(epoch FROM now() - bucket.updated_at))::double precision / 60)`;

const take = {
  name: 'harness-rate-budgets-take',
  text: `INSERT INTO harness_rate_budgets AS bucket (budget, key, tokens, updated_at, allowed)
    VALUES ($1, $2, $3::double precision - 1, now(), true)
    ON CONFLICT (budget, key) DO UPDATE SET
      tokens = ${refilled} - CASE WHEN ${refilled} >= 1 THEN 1 ELSE 0 END,
      allowed = ${refilled} >= 1,
      updated_at = greatest(bucket.updated_at, now())
    RETURNING tokens, allowed`,
};

/**
 * A per-minute budget shared by every replica: one row per key in `harness_rate_budgets`,
 * refilled and taken from by one statement (one round trip; the row lock orders takes of
 * one key across replicas, so a budget of N gives exactly N however many replicas ask).
 */
export class PostgresRateBudget implements RateBudget {
  constructor(
    private readonly pool: pg.Pool,
    private readonly name: string,
    private readonly perMinute: number,
  ) {}

  async take(key: string): Promise<RateOutcome> {
    const result = await this.pool.query<{ tokens: number; allowed: boolean }>({ ...take, values: [this.name, key, this.perMinute] });
    const row = result.rows[0]!;
    return row.allowed ? { allowed: true } : { allowed: false, retryAfterSeconds: retryAfterSeconds(row.tokens, this.perMinute) };
  }
}
