import { setTimeout as sleep } from 'node:timers/promises';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, reconnectDelay, type ConnectNatsOptions } from './nats-connection.js';

/** What the service's `GET /` reports about NATS. */
export type NatsLinkState = 'connected' | 'disconnected' | 'disabled';

const drainTimeoutMilliseconds = 5_000;

export type NatsLinkOptions = Omit<ConnectNatsOptions, 'onStatus'>;

/**
 * The service's lasting tie to NATS. A server that is down, unreachable or refusing at
 * start does not throw: the link keeps trying in the background (with the same backoff
 * as reconnects) and reports its state, so the HTTP services run regardless.
 */
export interface NatsLink {
  /** Starts connecting in the background; later calls do nothing. */
  start(): void;
  /** The live connection, or undefined while there is none. It may be reconnecting. */
  current(): NatsConnection | undefined;
  state(): NatsLinkState;
  /**
   * Called with each new connection object (the first one, and a fresh one after the old
   * one closed for good), and at once if one exists already. Subscriptions made on a
   * connection survive its own reconnects; a fresh connection needs them made again.
   * Returns a function that unregisters the callback.
   */
  onConnected(callback: (connection: NatsConnection) => void | Promise<void>): () => void;
  /** Called whenever `state()` changes. Returns a function that unregisters it. */
  onStateChange(callback: (state: NatsLinkState) => void): () => void;
  /** Drains and closes the connection and stops trying; `state()` stays `disconnected`. */
  close(): Promise<void>;
}

/** A link for `ENABLE_WEBSOCKET=false`: never connects, always `disabled`. */
export function createDisabledNatsLink(): NatsLink {
  return {
    start: () => undefined,
    current: () => undefined,
    state: () => 'disabled',
    onConnected: () => () => undefined,
    onStateChange: () => () => undefined,
    close: async () => undefined,
  };
}

export function createNatsLink(options: NatsLinkOptions): NatsLink {
  const base = options.reconnectWaitMilliseconds ?? 250;
  const maximum = options.maxReconnectWaitMilliseconds ?? 10_000;
  const connectedCallbacks = new Set<(connection: NatsConnection) => void | Promise<void>>();
  const stateCallbacks = new Set<(state: NatsLinkState) => void>();
  const stopRetrying = new AbortController();
  let connection: NatsConnection | undefined;
  let state: NatsLinkState = 'disconnected';
  let started = false;
  let closed = false;
  let running: Promise<void> = Promise.resolve();

  function setState(next: NatsLinkState): void {
    if (next === state) return;
    state = next;
    for (const callback of stateCallbacks) callback(next);
  }

  function announce(current: NatsConnection, callback: (connection: NatsConnection) => void | Promise<void>): void {
    Promise.resolve()
      .then(() => callback(current))
      .catch((error: unknown) => options.logger.error({ name: options.name, error: (error as Error).message }, 'a NATS onConnected callback failed'));
  }

  async function connectOnce(): Promise<NatsConnection> {
    // Status reports of a connection that is no longer the link's current one are ignored.
    const reporter: { connection?: NatsConnection } = {};
    const current = await connectNats({
      ...options,
      onStatus: (status) => {
        if (reporter.connection === undefined || reporter.connection !== connection) return;
        if (status === 'connected') setState('connected');
        else if (!closed) setState('disconnected');
      },
    });
    reporter.connection = current;
    return current;
  }

  async function keepConnected(): Promise<void> {
    let failures = 0;
    while (!closed) {
      let current: NatsConnection;
      try {
        current = await connectOnce();
      } catch (error) {
        if (closed) return;
        if (failures === 0) options.logger.warn({ name: options.name, error: (error as Error).message }, 'NATS is not reachable; retrying in the background');
        failures += 1;
        setState('disconnected');
        try {
          await sleep(reconnectDelay(failures - 1, base, maximum), undefined, { signal: stopRetrying.signal });
        } catch {
          return;
        }
        continue;
      }
      if (closed) {
        await current.close();
        return;
      }
      failures = 0;
      connection = current;
      setState('connected');
      for (const callback of connectedCallbacks) announce(current, callback);
      const error = await current.closed();
      connection = undefined;
      if (closed) return;
      options.logger.warn({ name: options.name, error: error?.message }, 'NATS connection closed; connecting again');
      setState('disconnected');
    }
  }

  return {
    start(): void {
      if (started || closed) return;
      started = true;
      running = keepConnected();
    },
    current: () => connection,
    state: () => state,
    onConnected(callback) {
      connectedCallbacks.add(callback);
      if (connection !== undefined && state === 'connected') announce(connection, callback);
      return () => connectedCallbacks.delete(callback);
    },
    onStateChange(callback) {
      stateCallbacks.add(callback);
      return () => stateCallbacks.delete(callback);
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      stopRetrying.abort();
      const current = connection;
      if (current !== undefined && !current.isClosed()) {
        // A drain waits for the server; while it is unreachable that could be forever.
        const giveUp = new AbortController();
        const drained = current.drain().then(() => true, () => false);
        const waited = sleep(drainTimeoutMilliseconds, false, { signal: giveUp.signal }).catch(() => false);
        const outcome = await Promise.race([drained, waited]);
        giveUp.abort();
        if (!outcome) await current.close();
      }
      await running;
      setState('disconnected');
    },
  };
}
