import { createHash } from 'node:crypto';
import bcrypt from 'bcryptjs';

/**
 * bcrypt cost of the NATS passwords. The passwords are 256-bit random or HMAC values, so
 * the cost only slows a brute force that cannot succeed anyway; a low cost keeps a config
 * rewrite with many accounts fast and nats-server's check at each connect cheap.
 */
export const natsPasswordBcryptCost = 8;

/**
 * Hashes NATS passwords for the config file and remembers each hash (keyed by a SHA-256
 * of user and password), so rewriting the config for one new account does not hash every
 * other account again.
 */
export class NatsPasswordHasher {
  private readonly hashes = new Map<string, Promise<string>>();

  hash(user: string, password: string): Promise<string> {
    const key = createHash('sha256').update(user).update('\0').update(password).digest('base64url');
    let hash = this.hashes.get(key);
    if (hash === undefined) {
      hash = bcrypt.hash(password, natsPasswordBcryptCost);
      this.hashes.set(key, hash);
      hash.catch(() => this.hashes.delete(key));
    }
    return hash;
  }
}
