import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from '../core/logger.js';
import { ChunkRetentionShare, type StoredChunks } from './chunk-retention-share.js';
import { defaultChunkRetentionSettings, defaultMaxBytesPerAccount, type ChunkRetentionSettings } from './chunk-retention-settings.js';
import { ChunkSubjectPurger } from './chunk-subject-purger.js';
import type { ReplayRetention } from './stream-replay.js';

/** The gateway's side of the chunk stream's sharing: told of every store, it purges what puts an account over its share. */
export interface ChunkRetention {
  stored(store: StoredChunks): void;
  /** Resolves once no purge waits or runs. */
  idle(): Promise<void>;
}

export interface ChunkRetentionOptions {
  retention: ReplayRetention;
  /** Default: `defaultChunkRetentionSettings`, the share an eighth of `retention.maxBytes`. */
  settings?: ChunkRetentionSettings;
  connection(): NatsConnection | undefined;
  logger: Logger;
}

/** One account storing a lot loses its own oldest turns, not everyone's (the stream discards the oldest once full). */
export function createChunkRetention(options: ChunkRetentionOptions): ChunkRetention {
  const purger = new ChunkSubjectPurger({ connection: options.connection, logger: options.logger });
  const share = new ChunkRetentionShare({
    ...(options.settings ?? { ...defaultChunkRetentionSettings, maxBytesPerAccount: defaultMaxBytesPerAccount(options.retention) }),
    maxAgeMilliseconds: options.retention.maxAgeMilliseconds,
    purge: (subject) => purger.purge(subject),
  });
  return { stored: (store) => share.stored(store), idle: () => purger.idle() };
}
