import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch, type Dispatcher } from 'undici';
import { InvalidRequestError } from '../errors.js';
import { nonPublicKind } from './address-classification.js';
import { destinationKinds, type DestinationKind, type OutboundSettings } from './outbound-settings.js';

/** A connection the outbound policy refused; the message names the host and the address, never a body. */
export class OutboundDestinationRefusedError extends Error {
  constructor(host: string, address: string, kind: string) {
    const resolved = host === address ? `${address} is` : `${host} resolves to ${address},`;
    super(`outbound call refused: ${resolved} a ${kind} address, and this service only calls public addresses for accounts (HARNESS_OUTBOUND_POLICY=public)`);
    this.name = 'OutboundDestinationRefusedError';
  }
}

function bare(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

type CheckedFetch = typeof fetch;

function fetchThrough(dispatcher: Dispatcher): CheckedFetch {
  return ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) => undiciFetch(input, { ...init, dispatcher })) as unknown as CheckedFetch;
}

/**
 * Where calls to destinations an account chose (model `baseURL`, channel `apiBaseUrl`, a
 * tool's `workerUrl`, an MCP server's `url`, a completion webhook's `url`) may go. Under `public`,
 * a config naming a non-public literal IP is refused when written, and every connection is
 * checked when it is made: the host is resolved here, each address it resolves to must be public
 * (or allowed by the operator for that kind of destination), and the socket connects to the
 * checked address, so a DNS answer that changes between the check and the connection
 * (rebinding) cannot slip through. Redirects open their connections through the same check. A
 * refused call fails before any byte is sent, so no answer from the refused destination can
 * reach the caller. Each kind of destination has its own connection pool, so a connection opened
 * for one kind's exceptions is never reused by another kind.
 */
export class OutboundPolicy {
  /**
   * `fetch` allowing only the exceptions for every kind (`HARNESS_OUTBOUND_ALLOW`); a caller of
   * one kind takes `fetchFor(kind)`, which adds that kind's own.
   */
  readonly fetch: CheckedFetch;
  /** The dispatcher behind `fetch`; undefined under `any` (undici's global dispatcher). */
  readonly dispatcher: Dispatcher | undefined;
  private readonly dispatchers = new Map<DestinationKind, Dispatcher>();
  private readonly fetches = new Map<DestinationKind, CheckedFetch>();

  constructor(
    readonly settings: OutboundSettings,
    private readonly resolve: (host: string) => Promise<string[]> = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address),
  ) {
    if (settings.mode === 'any') {
      this.dispatcher = undefined;
      this.fetch = (input, init) => fetch(input, init);
      return;
    }
    this.dispatcher = new Agent({ connect: this.checkedConnector(undefined) });
    this.fetch = fetchThrough(this.dispatcher);
    for (const kind of destinationKinds) {
      const dispatcher = new Agent({ connect: this.checkedConnector(kind) });
      this.dispatchers.set(kind, dispatcher);
      this.fetches.set(kind, fetchThrough(dispatcher));
    }
  }

  /** The dispatcher for one kind of destination (for undici `request`: the model client); undefined under `any`. */
  dispatcherFor(kind: DestinationKind): Dispatcher | undefined {
    return this.dispatchers.get(kind);
  }

  /** `fetch` for one kind of destination: public addresses, and the exceptions for every kind and for this one. */
  fetchFor(kind: DestinationKind): CheckedFetch {
    return this.fetches.get(kind) ?? this.fetch;
  }

  /**
   * A `fetch` for one kind under the same policy with a connection pool of its own, for a caller
   * that must end its sockets at once when it stops (the MCP connections: an MCP server sees them
   * go when the service stops, rather than when keep-alive lapses). `destroy` ends every socket
   * of the pool.
   */
  createOwnFetch(kind: DestinationKind): { fetch: CheckedFetch; destroy: () => Promise<void> } {
    const dispatcher = new Agent(this.restricts ? { connect: this.checkedConnector(kind) } : {});
    return { fetch: fetchThrough(dispatcher), destroy: () => dispatcher.destroy() };
  }

  /** Closes the checked connections' pools (service stop). */
  async close(): Promise<void> {
    await Promise.all([this.dispatcher?.close(), ...[...this.dispatchers.values()].map((dispatcher) => dispatcher.close())]);
  }

  get restricts(): boolean {
    return this.settings.mode === 'public';
  }

  /**
   * Why `address:port` may not be called for `kind`, or undefined when it may. Without a kind,
   * only the exceptions for every kind count.
   */
  refusalKind(address: string, port: number, kind?: DestinationKind): string | undefined {
    if (!this.restricts) return undefined;
    const addressKind = nonPublicKind(address);
    if (addressKind === undefined) return undefined;
    const exceptions = [...this.settings.allow, ...((kind && this.settings.allowByKind?.[kind]) || [])];
    const allowed = exceptions.some((entry) => sameAddress(entry.address, address) && (entry.port === undefined || entry.port === port));
    return allowed ? undefined : addressKind;
  }

  /**
   * At config time: refuses a URL whose host is a literal IP address the policy would refuse for
   * `kind`, with a 400 naming `field`. Host names are checked when connecting (DNS may change).
   */
  checkUrl(value: string | undefined, field: string, kind: DestinationKind): void {
    if (!this.restricts || value === undefined) return;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return;
    }
    const host = bare(url.hostname);
    if (isIP(host) === 0) return;
    const refused = this.refusalKind(host, Number(url.port) || (url.protocol === 'https:' ? 443 : 80), kind);
    if (refused) throw new InvalidRequestError(`${field} points at ${host}, a ${refused} address; this service only calls public addresses for accounts (HARNESS_OUTBOUND_POLICY=public)`);
  }

  private checkedConnector(destination: DestinationKind | undefined): buildConnector.connector {
    const connect = buildConnector({});
    return (options, callback) => {
      const host = bare(options.hostname);
      const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
      const addresses = isIP(host) ? Promise.resolve([host]) : this.resolve(host);
      addresses.then(
        (resolved) => {
          for (const address of resolved) {
            const kind = this.refusalKind(address, port, destination);
            if (kind) return callback(new OutboundDestinationRefusedError(host, address, kind), null);
          }
          if (resolved.length === 0) return callback(new Error(`${host} did not resolve to any address`), null);
          // Connect to the address just checked; TLS still verifies the certificate for the name.
          connect({ ...options, hostname: resolved[0]!, servername: options.servername ?? (isIP(host) ? undefined : host) } as buildConnector.Options, callback);
        },
        (error: unknown) => callback(error as Error, null),
      );
    };
  }
}

/** Two spellings of the same address (`::ffff:7f00:1` and `::ffff:127.0.0.1`) compare equal through their canonical form. */
function sameAddress(left: string, right: string): boolean {
  return canonical(left) === canonical(right);
}

function canonical(address: string): string {
  try {
    return new URL(`http://${isIP(address) === 6 ? `[${address}]` : address}/`).hostname;
  } catch {
    return address;
  }
}
