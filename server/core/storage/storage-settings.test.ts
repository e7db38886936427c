import { describe, expect, it } from 'vitest';
import { defaultCacheBytes } from './lowdb-storage.js';
import { storageSettingsFromEnvironment } from './storage-settings.js';

describe('storageSettingsFromEnvironment', () => {
  it('reads the cache budget, defaulting to 256 MiB', () => {
    expect(storageSettingsFromEnvironment({})).toEqual({ cacheBytes: defaultCacheBytes });
    expect(defaultCacheBytes).toBe(256 * 1024 * 1024);
    expect(storageSettingsFromEnvironment({ HARNESS_STORAGE_CACHE_BYTES: '1048576' })).toEqual({ cacheBytes: 1_048_576 });
  });

  it('refuses a value that is not a whole number of bytes, naming the variable', () => {
    for (const value of ['-1', '1.5', 'lots', '1e400']) expect(() => storageSettingsFromEnvironment({ HARNESS_STORAGE_CACHE_BYTES: value })).toThrow(/^HARNESS_STORAGE_CACHE_BYTES must be a whole number of bytes/);
  });
});
