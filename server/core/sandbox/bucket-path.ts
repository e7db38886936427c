import { z } from 'zod';

/** A relative path inside the bucket: plain segments, no `..`, `.`, leading `/` or backslash. */
export function isBucketRelativePath(value: string): boolean {
  if (value.length === 0 || value.length > 1024 || value.includes('\0') || value.includes('\\')) return false;
  return value.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/** A config field that names a place in the account's bucket (a workspace folder, a skill file). */
export const bucketPathSchema = z
  .string({ error: 'must be a relative path in the bucket' })
  .refine(isBucketRelativePath, 'must be a relative path in the bucket (no "..", no leading "/", no empty segment)');
