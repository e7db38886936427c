import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileDurably } from '../storage/durable-file.js';

/** The two service-wide secrets of a stage: deployment inputs, or generated once and kept in the data folder. */
export interface RuntimeSecrets {
  adminSecret: string;
  configEncryptionSecret: string;
}

/** The file that holds generated secrets; the one data file that may hold a secret in plaintext. */
export const generatedSecretsFileName = 'service-secrets.json';

const minimumLength = 32;

/**
 * Secrets from the environment (`HARNESS_ADMIN_SECRET`, `HARNESS_CONFIG_ENCRYPTION_SECRET`),
 * or generated once into the data folder with mode 0600 and reused on every later start.
 */
export async function loadRuntimeSecrets(dataFolder: string, environment: NodeJS.ProcessEnv = process.env): Promise<RuntimeSecrets> {
  const path = join(dataFolder, generatedSecretsFileName);
  let stored: Partial<RuntimeSecrets> = {};
  try {
    stored = JSON.parse(await readFile(path, 'utf8')) as Partial<RuntimeSecrets>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`Cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  const fromEnvironment = {
    adminSecret: environment.HARNESS_ADMIN_SECRET,
    configEncryptionSecret: environment.HARNESS_CONFIG_ENCRYPTION_SECRET,
  };
  for (const [name, value] of Object.entries(fromEnvironment)) {
    if (value !== undefined && value.length < minimumLength) {
      const variable = name === 'adminSecret' ? 'HARNESS_ADMIN_SECRET' : 'HARNESS_CONFIG_ENCRYPTION_SECRET';
      throw new Error(`${variable} must be at least ${minimumLength} characters long.`);
    }
  }
  const secrets: RuntimeSecrets = {
    adminSecret: fromEnvironment.adminSecret ?? stored.adminSecret ?? randomBytes(32).toString('base64url'),
    configEncryptionSecret: fromEnvironment.configEncryptionSecret ?? stored.configEncryptionSecret ?? randomBytes(32).toString('base64url'),
  };
  const generated = {
    ...(fromEnvironment.adminSecret ? {} : { adminSecret: secrets.adminSecret }),
    ...(fromEnvironment.configEncryptionSecret ? {} : { configEncryptionSecret: secrets.configEncryptionSecret }),
  };
  const changed = Object.entries(generated).some(([name, value]) => stored[name as keyof RuntimeSecrets] !== value);
  if (changed) await writeFileDurably(path, JSON.stringify({ ...stored, ...generated }, null, 2), 0o600);
  return secrets;
}
