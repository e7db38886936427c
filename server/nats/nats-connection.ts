import { connect } from '@nats-io/transport-node';
import { jwtAuthenticator, wsconnect, type ConnectionOptions, type NatsConnection, type WsConnectionOptions } from '@nats-io/nats-core';
import WebSocket from 'ws';
import type { Logger } from '../core/logger.js';

/** What a connection is doing, as reported to `onStatus`. */
export type NatsConnectionStatus = 'connected' | 'disconnected' | 'reconnecting' | 'closed';

/** The transport a URL selects: `nats://`/`tls://` core TCP, `ws://`/`wss://` WebSocket. */
export type NatsTransport = 'tcp' | 'websocket';

export interface ConnectNatsOptions {
  /**
   * `nats://host:port`, `tls://host:port`, `ws://host:port` or `wss://host:port`; several
   * servers of one cluster comma-separated (`nats://a:4222,nats://b:4222`), all of one transport.
   */
  url: string;
  /** Token authentication (an outside server configured with `authorization { token }`). */
  token?: string;
  /** User and password authentication (the embedded server: `harness-service` or `account-<id>`). */
  user?: string;
  password?: string;
  /** A user JWT (decentralized authentication), used with `seed` to sign the server's nonce; wins over user and password. */
  jwt?: string;
  /** The nkey seed (`SU…`) of the user the JWT names. */
  seed?: string;
  /** The connection's name, shown in nats-server's logs and monitoring. */
  name: string;
  /** Where request replies arrive; an account user must use `_INBOX.<accountId>`. */
  inboxPrefix?: string;
  logger: Logger;
  /** Called on every status change after the first connect. */
  onStatus?: (status: NatsConnectionStatus) => void;
  /** First reconnect wait; doubles per failed attempt up to `maxReconnectWaitMilliseconds`. Default 250 ms. */
  reconnectWaitMilliseconds?: number;
  /** Longest reconnect wait. Default 10 s. */
  maxReconnectWaitMilliseconds?: number;
  /** Timeout of one connection attempt. Default 5 s. */
  timeoutMilliseconds?: number;
}

type WebSocketFactory = NonNullable<WsConnectionOptions['wsFactory']>;
type FactorySocket = Awaited<ReturnType<WebSocketFactory>>['socket'];

/**
 * Node 20 has no global WebSocket, and without one nats-core's WebSocket transport never
 * settles its connect promise; `wsFactory` (nats-core 3.3 `WsConnectionOptions`) hands it
 * the `ws` package's socket, which has the W3C `onopen`/`onmessage`/`binaryType` surface.
 */
const webSocketFactory: WebSocketFactory = async (url) => ({
  socket: new WebSocket(url) as unknown as FactorySocket,
  encrypted: url.toLowerCase().startsWith('wss://'),
});

/**
 * The servers of a NATS URL list: `nats://a:4222, nats://b:4222` gives both, trimmed. An
 * entry without a scheme (`a:4222`, as nats-server's own `--routes` and the `nats` CLI accept)
 * is a `nats://` server.
 */
export function natsServerList(url: string): string[] {
  return url
    .split(',')
    .map((server) => server.trim())
    .filter((server) => server !== '')
    .map((server) => (server.includes('://') ? server : `nats://${server}`));
}

function transportOfOne(url: string): NatsTransport {
  const scheme = url.toLowerCase().split('://', 1)[0];
  if (scheme === 'nats' || scheme === 'tls') return 'tcp';
  if (scheme === 'ws' || scheme === 'wss') return 'websocket';
  throw new Error(`NATS_URL must start with nats://, tls://, ws:// or wss:// (got ${JSON.stringify(url)}).`);
}

/** The transport of a NATS URL (or comma-separated list, which must not mix transports; an entry without a scheme is `nats://`); throws on any other scheme. */
export function natsTransportOf(url: string): NatsTransport {
  const transports = new Set(natsServerList(url).map(transportOfOne));
  if (transports.size === 0) throw new Error('NATS_URL lists no server.');
  if (transports.size > 1) throw new Error('NATS_URL lists servers of different transports; use only nats:// (or tls://) URLs, or only ws:// (or wss://) URLs.');
  return [...transports][0]!;
}

/**
 * The servers of `NATS_URL` without their user information, and the credentials it carried:
 * `nats://user:password@host` is a user and password, `nats://token@host` (user information
 * without a password) a token, as nats-server's own clients read it. The first server that
 * carries any gives them.
 */
export function withoutUserInformation(url: string): { url: string; user?: string; password?: string; token?: string } {
  let credentials: { user: string; password: string } | { token: string } | undefined;
  const servers = natsServerList(url).map((server) => {
    let parsed: URL;
    try {
      parsed = new URL(server);
    } catch {
      throw new Error('NATS_URL is not a valid URL (expected nats://, tls://, ws:// or wss://host:port, or several comma-separated).');
    }
    if (parsed.username === '' && parsed.password === '') return server;
    const user = decodeURIComponent(parsed.username);
    const password = decodeURIComponent(parsed.password);
    credentials ??= password === '' ? { token: user } : { user, password };
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  });
  return { url: servers.join(','), ...(credentials ?? {}) };
}

/**
 * `NATS_URL` as it may be printed or written: each server checked as the service checks it (a
 * known scheme, one transport, a valid URL) and without its user information, a credential.
 */
export function natsUrlWithoutCredentials(url: string): string {
  natsTransportOf(url);
  return withoutUserInformation(url).url;
}

/** Exponential backoff with jitter: wait, 2x, 4x... up to the maximum, each plus up to half again at random. */
export function reconnectDelay(attempt: number, baseMilliseconds: number, maxMilliseconds: number): number {
  const delay = Math.min(maxMilliseconds, baseMilliseconds * 2 ** Math.min(attempt, 20));
  return Math.round(delay + Math.random() * delay * 0.5);
}

/**
 * The client's `reconnectDelayHandler`. nats-core calls it on every turn of its dial loop
 * (also while it is only waiting), not once per attempt, so a counter would grow far too
 * fast. Instead the wait is half the time spent disconnected so far, between the base and
 * the maximum, with a jitter drawn once per outage: attempts come at roughly doubling
 * intervals, and clients that lost the same server do not return in step.
 */
export class ReconnectBackoff {
  private disconnectedAt: number | undefined;
  private jitter = 1;

  constructor(
    private readonly baseMilliseconds: number,
    private readonly maxMilliseconds: number,
  ) {}

  disconnected(now = Date.now()): void {
    this.disconnectedAt ??= now;
    this.jitter = 1 + Math.random() * 0.5;
  }

  reconnected(): void {
    this.disconnectedAt = undefined;
  }

  delay(now = Date.now()): number {
    const elapsed = now - (this.disconnectedAt ?? now);
    return Math.round(Math.min(this.maxMilliseconds, Math.max(this.baseMilliseconds, elapsed / 2)) * this.jitter);
  }
}

async function followStatus(connection: NatsConnection, options: ConnectNatsOptions, backoff: ReconnectBackoff): Promise<void> {
  const report = (status: NatsConnectionStatus): void => options.onStatus?.(status);
  for await (const status of connection.status()) {
    switch (status.type) {
      case 'disconnect':
        options.logger.warn({ name: options.name, server: status.server }, 'NATS connection lost; reconnecting');
        backoff.disconnected();
        report('disconnected');
        break;
      case 'reconnecting':
        report('reconnecting');
        break;
      case 'reconnect':
        options.logger.info({ name: options.name, server: status.server }, 'NATS connection restored');
        backoff.reconnected();
        report('connected');
        break;
      case 'error':
        options.logger.warn({ name: options.name, error: status.error.message }, 'NATS server reported an error');
        break;
      default:
        break;
    }
  }
}

function authenticationOf(options: ConnectNatsOptions): Partial<ConnectionOptions> {
  if (options.jwt !== undefined) return { authenticator: jwtAuthenticator(options.jwt, new TextEncoder().encode(options.seed ?? '')) };
  if (options.user !== undefined) return { user: options.user, pass: options.password ?? '' };
  if (options.token !== undefined) return { token: options.token };
  return {};
}

/**
 * Connects to NATS over the transport the URL's scheme selects. Once connected, the
 * client reconnects forever with backoff and jitter (`maxReconnectAttempts: -1`) and
 * resubscribes by itself; status changes go to `onStatus` and the logger. The first
 * attempt is not retried: a server that is down or refuses the credentials rejects the
 * promise (use `NatsLink` to keep trying in the background).
 */
export async function connectNats(options: ConnectNatsOptions): Promise<NatsConnection> {
  const transport = natsTransportOf(options.url);
  const base = options.reconnectWaitMilliseconds ?? 250;
  const maximum = options.maxReconnectWaitMilliseconds ?? 10_000;
  const backoff = new ReconnectBackoff(base, maximum);
  const connectionOptions: ConnectionOptions = {
    servers: natsServerList(options.url),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: base,
    reconnectDelayHandler: () => backoff.delay(),
    timeout: options.timeoutMilliseconds ?? 5_000,
    ...(options.inboxPrefix === undefined ? {} : { inboxPrefix: options.inboxPrefix }),
    ...authenticationOf(options),
    ...(natsServerList(options.url).some((server) => server.toLowerCase().startsWith('tls://')) ? { tls: {} } : {}),
  };
  const connection =
    transport === 'websocket'
      ? await wsconnect({ ...connectionOptions, wsFactory: webSocketFactory } satisfies WsConnectionOptions)
      : await connect(connectionOptions);
  options.logger.info({ name: options.name, transport, server: connection.getServer() }, 'NATS connected');
  void followStatus(connection, options, backoff).catch((error: unknown) =>
    options.logger.warn({ name: options.name, error: (error as Error).message }, 'NATS status stream failed'),
  );
  void connection.closed().then((error) => {
    if (error) options.logger.warn({ name: options.name, error: error.message }, 'NATS connection closed with an error');
    options.onStatus?.('closed');
  });
  return connection;
}
