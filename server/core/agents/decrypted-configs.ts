import type { EncryptedValue } from '../secrets/config-encryption.js';

/** How many agents' plaintext configs one process keeps (the least recently used go first). */
export const defaultDecryptedConfigsKept = 1_000;

interface Entry {
  encrypted: EncryptedValue;
  /** The config as JSON: parsed again for every caller, so no caller can change another's copy. */
  json: string;
}

function sameCiphertext(left: EncryptedValue, right: EncryptedValue): boolean {
  return left.ciphertext === right.ciphertext && left.nonce === right.nonce && left.tag === right.tag && left.keyVersion === right.keyVersion;
}

/**
 * The decrypted configs of the agents this process read last, each kept with the exact
 * ciphertext it came from. A read still goes to storage every time; only the decryption
 * (AES-GCM with its key set up again, then `JSON.parse`, about a tenth of a turn's CPU at zero
 * model latency) is skipped when the stored ciphertext is the one decrypted before. A config
 * written by any replica is a new ciphertext (a fresh nonce per write), so a change is seen by
 * the next read everywhere, exactly as without the cache: nothing here can be stale.
 */
export class DecryptedConfigs {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly kept: number = defaultDecryptedConfigsKept) {}

  /** The config `encrypted` holds for this agent, decrypting it only when it is not the one kept. */
  get<T>(accountId: string, agentId: string, encrypted: EncryptedValue, decrypt: () => T): T {
    const key = `${accountId}\u0000${agentId}`;
    const entry = this.entries.get(key);
    if (entry && sameCiphertext(entry.encrypted, encrypted)) {
      // Most recently used last: the first key is the one to drop.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return JSON.parse(entry.json) as T;
    }
    const config = decrypt();
    if (this.kept > 0) {
      this.entries.delete(key);
      this.entries.set(key, { encrypted: { ...encrypted }, json: JSON.stringify(config) });
      if (this.entries.size > this.kept) this.entries.delete(this.entries.keys().next().value!);
    }
    return config;
  }

  /** Forget an agent (deleted): its plaintext is not kept longer than needed. */
  forget(accountId: string, agentId: string): void {
    this.entries.delete(`${accountId}\u0000${agentId}`);
  }

  /** How many configs are kept now (for tests). */
  get size(): number {
    return this.entries.size;
  }
}
