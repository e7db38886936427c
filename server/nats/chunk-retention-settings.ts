import { integerSetting } from '../core/integer-setting.js';
import { defaultReplayRetention, type ReplayRetention } from './stream-replay.js';

/** How the chunk stream's bytes are shared between accounts (the operator's `HARNESS_CHUNKS_*` settings). */
export interface ChunkRetentionSettings {
  /**
   * `HARNESS_CHUNKS_MAX_BYTES_PER_ACCOUNT` (default an eighth of the stream's `max_bytes`, at
   * least 8 MiB: 32 MiB): stored chunks one account may hold through one process; past it the
   * account's oldest turns are purged from the stream.
   */
  maxBytesPerAccount: number;
  /** `HARNESS_CHUNKS_MAX_TRACKED_TURNS` (default 100,000): turns one process counts; past it the account with the most loses its oldest. */
  maxTrackedTurns: number;
}

/** The default share: an eighth of the stream, so eight heavy accounts fill it before anyone's oldest turn is discarded by the stream itself. */
export function defaultMaxBytesPerAccount(retention: ReplayRetention = defaultReplayRetention): number {
  return Math.max(8 * 1024 * 1024, Math.floor(retention.maxBytes / 8));
}

export const defaultChunkRetentionSettings: ChunkRetentionSettings = {
  maxBytesPerAccount: defaultMaxBytesPerAccount(),
  maxTrackedTurns: 100_000,
};

/** Reads the `HARNESS_CHUNKS_*` variables over the defaults; a bad value is a start error naming the variable. */
export function chunkRetentionSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): ChunkRetentionSettings {
  return {
    maxBytesPerAccount: integerSetting(environment, 'HARNESS_CHUNKS_MAX_BYTES_PER_ACCOUNT', defaultChunkRetentionSettings.maxBytesPerAccount, 64 * 1024, 1024 * 1024 * 1024 * 1024),
    maxTrackedTurns: integerSetting(environment, 'HARNESS_CHUNKS_MAX_TRACKED_TURNS', defaultChunkRetentionSettings.maxTrackedTurns, 100, 10_000_000),
  };
}
