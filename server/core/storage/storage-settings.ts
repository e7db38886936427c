import { defaultCacheBytes, type LowdbStorageOptions } from './lowdb-storage.js';

/**
 * Storage settings from the environment, read once at start; a bad value is a start error.
 * `HARNESS_STORAGE_CACHE_BYTES`: the memory budget of the partitions kept loaded (their
 * serialized size), default 256 MiB; clean partitions past it are dropped, least recently
 * used first, and read again from their files when needed.
 */
export function storageSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): LowdbStorageOptions {
  const value = environment.HARNESS_STORAGE_CACHE_BYTES;
  if (value === undefined || value === '') return { cacheBytes: defaultCacheBytes };
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0) throw new Error(`HARNESS_STORAGE_CACHE_BYTES must be a whole number of bytes, 0 or more (got ${JSON.stringify(value)}).`);
  return { cacheBytes: parsed };
}
