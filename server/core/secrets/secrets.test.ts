import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporaryFolder } from '../../../test/support/temporary-folder.js';
import { ConfigCipher } from './config-encryption.js';
import { collectSecretValues, isSecretFieldName, redactSecrets, restoreRedactedSecrets } from './redaction.js';
import { generatedSecretsFileName, loadRuntimeSecrets } from './runtime-secrets.js';
import { accountIdFromSecret, generateAccountSecret, hashSecret, secretMatchesHash, secretsEqual } from './secret-hash.js';

describe('account secrets', () => {
  it('carry the account id and at least 32 random bytes, and match only their own hash', () => {
    const secret = generateAccountSecret('acc_0123456789abcdef0123');
    expect(accountIdFromSecret(secret)).toBe('acc_0123456789abcdef0123');
    expect(Buffer.from(secret.split('_').slice(3).join('_'), 'base64url').length).toBeGreaterThanOrEqual(32);
    expect(secretMatchesHash(secret, hashSecret(secret))).toBe(true);
    expect(secretMatchesHash(`${secret}x`, hashSecret(secret))).toBe(false);
    expect(accountIdFromSecret('hsk_acc_x_y')).toBeUndefined();
    expect(secretsEqual('a', 'a')).toBe(true);
    expect(secretsEqual('a', 'ab')).toBe(false);
  });
});

describe('ConfigCipher', () => {
  it('round-trips, hides the plaintext, and refuses another row or another key', () => {
    const cipher = new ConfigCipher('a'.repeat(40));
    const encrypted = cipher.encrypt({ apiKey: 'sk-very-secret-value' }, 'agent:1');
    expect(JSON.stringify(encrypted)).not.toContain('sk-very-secret-value');
    expect(cipher.decrypt(encrypted, 'agent:1')).toEqual({ apiKey: 'sk-very-secret-value' });
    expect(() => cipher.decrypt(encrypted, 'agent:2')).toThrow();
    expect(() => new ConfigCipher('b'.repeat(40)).decrypt(encrypted, 'agent:1')).toThrow();
    expect(cipher.encrypt({}, 'x').nonce).not.toBe(cipher.encrypt({}, 'x').nonce);
  });
});

describe('redaction', () => {
  it('knows secret field names by the contract', () => {
    for (const name of ['apiKey', 'botToken', 'completionBearerToken', 'signingSecret', 'webhookSecret', 'secretToken', 'token', 'APIKEY', 'accessKeyId', 'secretAccessKey', 'sessionToken']) expect(isSecretFieldName(name)).toBe(true);
    for (const name of ['publicKey', 'model', 'tokenizer', 'maxResults']) expect(isSecretFieldName(name)).toBe(false);
  });

  it('redacts every secret with last4 only for long values, and restores what is sent back', () => {
    const stored = { provider: { openai: { apiKey: 'sk-1234567890abcd', model: 'm' } }, channels: { telegram: { botToken: 'short', secretToken: 'another-long-secret-1234' } } };
    const redacted = redactSecrets(stored);
    expect(redacted).toEqual({
      provider: { openai: { apiKey: { redacted: true, last4: 'abcd' }, model: 'm' } },
      channels: { telegram: { botToken: { redacted: true }, secretToken: { redacted: true, last4: '1234' } } },
    });
    expect(restoreRedactedSecrets(redacted, stored)).toEqual(stored);
    expect(() => restoreRedactedSecrets({ tools: { alphaSearch: { apiKey: { redacted: true } } } }, {})).toThrow('config.tools.alphaSearch.apiKey is a redacted placeholder');
    expect(collectSecretValues(stored).sort()).toEqual(['another-long-secret-1234', 'short', 'sk-1234567890abcd']);
  });
});

describe('loadRuntimeSecrets', () => {
  it('generates both secrets once, mode 0600, and reuses them', async () => {
    const folder = await temporaryFolder();
    try {
      const first = await loadRuntimeSecrets(folder.path, {});
      const second = await loadRuntimeSecrets(folder.path, {});
      expect(second).toEqual(first);
      expect(first.adminSecret.length).toBeGreaterThanOrEqual(43);
      expect((await stat(join(folder.path, generatedSecretsFileName))).mode & 0o777).toBe(0o600);
    } finally {
      await folder.remove();
    }
  });

  it('prefers the environment and never writes an environment secret to disk', async () => {
    const folder = await temporaryFolder();
    try {
      const environment = { HARNESS_ADMIN_SECRET: 'admin-from-the-environment-0123456789abcdef' };
      const secrets = await loadRuntimeSecrets(folder.path, environment);
      expect(secrets.adminSecret).toBe(environment.HARNESS_ADMIN_SECRET);
      expect(await readFile(join(folder.path, generatedSecretsFileName), 'utf8')).not.toContain(environment.HARNESS_ADMIN_SECRET);
      await expect(loadRuntimeSecrets(folder.path, { HARNESS_CONFIG_ENCRYPTION_SECRET: 'short' })).rejects.toThrow('HARNESS_CONFIG_ENCRYPTION_SECRET must be at least 32');
    } finally {
      await folder.remove();
    }
  });
});
