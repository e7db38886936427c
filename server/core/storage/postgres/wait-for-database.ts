import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../logger.js';

/** Errors of a database that is not there yet (still starting, or its port not open): worth waiting for. */
const transientCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', '57P03', '53300']);

export function isTransientDatabaseError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && transientCodes.has(code);
}

export interface WaitForDatabaseOptions {
  /** How long to keep trying a database that is not there yet. */
  waitMilliseconds: number;
  logger?: Logger;
}

/**
 * Runs `connect` until it succeeds, retrying while the database is not there yet (replicas
 * and the database started together); a wrong password or a missing database fails at once.
 */
export async function waitForDatabase(connect: () => Promise<void>, options: WaitForDatabaseOptions): Promise<void> {
  const deadline = Date.now() + options.waitMilliseconds;
  for (let wait = 100; ; wait = Math.min(2_000, wait * 2)) {
    try {
      await connect();
      return;
    } catch (error) {
      if (!isTransientDatabaseError(error) || Date.now() + wait > deadline) throw error;
      options.logger?.warn({ event: 'database', error: (error as Error).message }, 'PostgreSQL is not reachable yet; trying again');
      await sleep(wait);
    }
  }
}
