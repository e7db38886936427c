import { createHash } from 'node:crypto';
import path from 'node:path';

/**
 * The host folder of one account inside the filesystem bucket. Workspace paths and skill
 * files are relative to it, so two accounts that both name a workspace path `notes` never
 * share a folder, while agents of one account can (a subagent can work in its parent's
 * workspace). Ids are never used raw as file names, whatever characters they may hold: the
 * folder is named by a digest of the account id.
 */
export function accountBucketFolder(bucketFolder: string, accountId: string): string {
  const digest = createHash('sha256').update(accountId, 'utf8').digest('hex').slice(0, 32);
  return path.join(bucketFolder, 'accounts', digest);
}
