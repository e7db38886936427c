import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a high-entropy secret: enough, since such secrets cannot be guessed. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

/** Compare a presented secret with a stored hash in constant time. */
export function secretMatchesHash(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'base64url');
  const stored = Buffer.from(storedHash, 'base64url');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** Compare two secrets in constant time, whatever their lengths. */
export function secretsEqual(presented: string, expected: string): boolean {
  return secretMatchesHash(presented, hashSecret(expected));
}

/**
 * An account secret: `hsk_<accountId>_<43 characters from 32 random bytes>`. Carrying the
 * account id lets the service find the account without an index of hashes; the random part
 * is what authorizes.
 */
export function generateAccountSecret(accountId: string): string {
  return `hsk_${accountId}_${randomBytes(32).toString('base64url')}`;
}

/** The account id a secret claims to belong to, or undefined when it is not one of ours. */
export function accountIdFromSecret(secret: string): string | undefined {
  const match = /^hsk_(acc_[a-z0-9]{20})_[A-Za-z0-9_-]{43}$/.exec(secret);
  return match?.[1];
}
