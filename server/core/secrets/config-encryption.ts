import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** An encrypted JSON value as stored: AES-256-GCM, a fresh 96-bit nonce per write. */
export interface EncryptedValue {
  algorithm: 'aes-256-gcm';
  keyVersion: 1;
  nonce: string;
  tag: string;
  ciphertext: string;
}

/**
 * Encrypts agent configs at rest. The key is derived with HKDF-SHA256 from the stage's
 * config-encryption secret; `associatedData` binds a ciphertext to its row (account and
 * agent), so a ciphertext copied onto another agent does not decrypt.
 */
export class ConfigCipher {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'harness-config-encryption', 'agent-config-v1', 32));
  }

  encrypt(value: unknown, associatedData: string): EncryptedValue {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return {
      algorithm: 'aes-256-gcm',
      keyVersion: 1,
      nonce: nonce.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      ciphertext: ciphertext.toString('base64'),
    };
  }

  decrypt<T>(encrypted: EncryptedValue, associatedData: string): T {
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(encrypted.nonce, 'base64'));
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(Buffer.from(encrypted.tag, 'base64'));
    const plaintext = Buffer.concat([decipher.update(Buffer.from(encrypted.ciphertext, 'base64')), decipher.final()]);
    return JSON.parse(plaintext.toString('utf8')) as T;
  }
}
