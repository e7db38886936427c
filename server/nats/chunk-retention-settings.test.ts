import { describe, expect, it } from 'vitest';
import { chunkRetentionSettingsFromEnvironment, defaultMaxBytesPerAccount } from './chunk-retention-settings.js';
import { defaultReplayRetention } from './stream-replay.js';

describe('chunkRetentionSettingsFromEnvironment', () => {
  it('defaults to an eighth of the stream per account (at least 8 MiB) and 100,000 tracked turns', () => {
    expect(chunkRetentionSettingsFromEnvironment({})).toEqual({ maxBytesPerAccount: 32 * 1024 * 1024, maxTrackedTurns: 100_000 });
    expect(defaultMaxBytesPerAccount({ ...defaultReplayRetention, maxBytes: 16 * 1024 * 1024 })).toBe(8 * 1024 * 1024);
  });

  it('reads HARNESS_CHUNKS_MAX_BYTES_PER_ACCOUNT and HARNESS_CHUNKS_MAX_TRACKED_TURNS, and refuses a bad value by name', () => {
    expect(chunkRetentionSettingsFromEnvironment({ HARNESS_CHUNKS_MAX_BYTES_PER_ACCOUNT: '1048576', HARNESS_CHUNKS_MAX_TRACKED_TURNS: '500' })).toEqual({ maxBytesPerAccount: 1_048_576, maxTrackedTurns: 500 });
    expect(() => chunkRetentionSettingsFromEnvironment({ HARNESS_CHUNKS_MAX_BYTES_PER_ACCOUNT: '1k' })).toThrow(/HARNESS_CHUNKS_MAX_BYTES_PER_ACCOUNT/);
  });
});
