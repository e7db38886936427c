import type { NatsConnection } from '@nats-io/nats-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../core/logger.js';
import { findFreeTcpPort } from './free-tcp-port.js';
import { connectNats } from './nats-connection.js';
import { createDisabledNatsLink, createNatsLink, type NatsLink, type NatsLinkState } from './nats-link.js';
import { createNatsAuthority } from './nats-authority.js';
import { startNatsServer, type EmbeddedNatsServer } from './nats-server-process.js';
import { makeTemporaryDataDir, randomSecret } from './test-support/nats-test-support.js';

const stageSecret = randomSecret();
const eventually = { timeout: 15_000, interval: 20 };

describe('NatsLink', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups.length = 0;
  });

  it.each(['tcp', 'websocket'] as const)(
    'over %s: keeps trying while the server is down, reports disconnected while it is stopped and connected once it is back',
    async (transport) => {
      const dataDir = await makeTemporaryDataDir();
      cleanups.push(() => dataDir.remove());
      const port = await findFreeTcpPort();
      const websocketPort = await findFreeTcpPort();
      const url = transport === 'tcp' ? `nats://127.0.0.1:${port}` : `ws://127.0.0.1:${websocketPort}`;
      const start = (): Promise<EmbeddedNatsServer> =>
        startNatsServer({ dataDir: dataDir.path, port, websocketPort, stageSecret, logger: silentLogger });

      // The keys are derived from the stage secret, so the service's credentials exist before the server does.
      const service = await (await createNatsAuthority(stageSecret)).issueUser('harness-service');
      const link: NatsLink = createNatsLink({
        url,
        jwt: service.jwt,
        seed: service.seed,
        name: `link-${transport}`,
        logger: silentLogger,
        reconnectWaitMilliseconds: 50,
        maxReconnectWaitMilliseconds: 200,
      });
      cleanups.push(() => link.close());
      const states: NatsLinkState[] = [];
      link.onStateChange((state) => states.push(state));
      const received: string[] = [];
      link.onConnected((connection: NatsConnection) => {
        connection.subscribe('harness.test.link', {
          callback: (error, message) => {
            if (error === null) received.push(message.string());
          },
        });
      });

      link.start();
      expect(link.state()).toBe('disconnected');
      expect(link.current()).toBeUndefined();

      let server = await start();
      cleanups.push(() => server.stop());
      await vi.waitFor(() => expect(link.state()).toBe('connected'), eventually);
      expect(link.current()).toBeDefined();

      await server.stop();
      await vi.waitFor(() => expect(link.state()).toBe('disconnected'), eventually);

      server = await start();
      await vi.waitFor(() => expect(link.state()).toBe('connected'), eventually);
      expect(states).toEqual(['connected', 'disconnected', 'connected']);

      // The subscription made in onConnected is still in place after the server came back.
      const publisher = await createConnectedPublisher(server);
      cleanups.push(() => publisher.close());
      await vi.waitFor(async () => {
        publisher.publish('harness.test.link', 'after restart');
        await publisher.flush();
        expect(received).toContain('after restart');
      }, eventually);
    },
  );

  it('never connects when disabled', async () => {
    const link = createDisabledNatsLink();
    link.start();
    expect(link.state()).toBe('disabled');
    expect(link.current()).toBeUndefined();
    await link.close();
    expect(link.state()).toBe('disabled');
  });

  it('stops trying when closed before any server appears', async () => {
    const port = await findFreeTcpPort();
    const link = createNatsLink({ url: `nats://127.0.0.1:${port}`, token: 'unused', name: 'never', logger: silentLogger, reconnectWaitMilliseconds: 50 });
    link.start();
    await link.close();
    expect(link.state()).toBe('disconnected');
    expect(link.current()).toBeUndefined();
  });
});

function createConnectedPublisher(server: EmbeddedNatsServer): Promise<NatsConnection> {
  return connectNats({ url: server.url, ...server.serviceCredentials, name: 'link-test-publisher', logger: silentLogger });
}
