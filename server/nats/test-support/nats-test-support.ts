import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';

/** Test helpers for the NATS layer: temp data folders and permission-error waits. Not used by the service. */

export async function makeTemporaryDataDir(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'harness-nats-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Resolves with the message of the next server error (for example a permissions violation) on the connection. */
export async function nextServerError(connection: NatsConnection): Promise<string> {
  for await (const status of connection.status()) {
    if (status.type === 'error') return status.error.message;
  }
  throw new Error('The connection closed before the server reported an error.');
}
