import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { writeFileAtomically } from '../atomic-write.js';
import type { ClusterPaths } from './cluster-state.js';

/** The secrets every replica of the cluster shares (`HARNESS_ADMIN_SECRET`, `HARNESS_CONFIG_ENCRYPTION_SECRET`). */
export interface ClusterSecrets {
  adminSecret: string;
  configEncryptionSecret: string;
}

/**
 * The cluster's secrets: generated on the first `cluster up` into `secrets.json` (mode 0600)
 * and reused by every later one, so the data of an earlier run stays readable. The
 * environment's values win, as they do for `harness serve`.
 */
export async function loadClusterSecrets(paths: ClusterPaths, environment: Record<string, string | undefined>): Promise<ClusterSecrets> {
  let stored: Partial<ClusterSecrets> = {};
  try {
    stored = JSON.parse(await readFile(paths.secretsFile, 'utf8')) as Partial<ClusterSecrets>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secrets: ClusterSecrets = {
    adminSecret: environment.HARNESS_ADMIN_SECRET || stored.adminSecret || randomBytes(32).toString('base64url'),
    configEncryptionSecret: environment.HARNESS_CONFIG_ENCRYPTION_SECRET || stored.configEncryptionSecret || randomBytes(32).toString('base64url'),
  };
  if (secrets.adminSecret !== stored.adminSecret || secrets.configEncryptionSecret !== stored.configEncryptionSecret) {
    await writeFileAtomically(paths.secretsFile, `${JSON.stringify(secrets, null, 2)}\n`, 0o600);
  }
  return secrets;
}
