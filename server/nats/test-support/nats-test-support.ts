import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/nats-core';
import { silentLogger } from '../../core/logger.js';
import { connectNats } from '../nats-connection.js';
import { startNatsServer, type EmbeddedNatsServer } from '../nats-server-process.js';

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

/** A real nats-server on a temporary data folder, with the service's connection to it. */
export interface TestNats {
  server: EmbeddedNatsServer;
  connection: NatsConnection;
  /** Closes the connection, stops the server and removes its folder. */
  stop(): Promise<void>;
}

/** Starts a nats-server for a test and connects to it as the service, naming the connection `name`. */
export async function startTestNats(name: string): Promise<TestNats> {
  const folder = await makeTemporaryDataDir();
  const server = await startNatsServer({ dataDir: join(folder.path, 'nats'), stageSecret: randomSecret(), logger: silentLogger });
  const connection = await connectNats({ url: server.url, ...server.serviceCredentials, name, logger: silentLogger });
  return {
    server,
    connection,
    stop: async () => {
      await connection.close();
      await server.stop();
      await folder.remove();
    },
  };
}
