import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch, type Dispatcher } from 'undici';
import { InvalidRequestError } from '../errors.js';
import { nonPublicKind } from './address-classification.js';
import type { OutboundSettings } from './outbound-settings.js';

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

/**
 * Where calls to destinations an account chose (model `baseURL`, channel `apiBaseUrl`, a
 * tool's `workerUrl`) may go. Under `public`, a config naming a non-public literal IP is
 * refused when written, and every connection is checked when it is made: the host is resolved
 * here, each address it resolves to must be public (or allowed by the operator), and the
 * socket connects to the checked address, so a DNS answer that changes between the check and
 * the connection (rebinding) cannot slip through. Redirects open their connections through the
 * same check. A refused call fails before any byte is sent, so no answer from the refused
 * destination can reach the caller.
 */
export class OutboundPolicy {
  /** For undici `request` (the model client); undefined under `any` (undici's global dispatcher). */
  readonly dispatcher: Dispatcher | undefined;
  /** `fetch` for account-chosen destinations. */
  readonly fetch: typeof fetch;

  constructor(
    readonly settings: OutboundSettings,
    private readonly resolve: (host: string) => Promise<string[]> = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address),
  ) {
    if (settings.mode === 'any') {
      this.dispatcher = undefined;
      this.fetch = (input, init) => fetch(input, init);
      return;
    }
    const dispatcher = new Agent({ connect: this.checkedConnector() });
    this.dispatcher = dispatcher;
    this.fetch = ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
      undiciFetch(input, { ...init, dispatcher })) as unknown as typeof fetch;
  }

  /**
   * A `fetch` under the same policy with a connection pool of its own, for a caller that must end
   * its sockets at once when it stops (the MCP connections: an MCP server sees them go when the
   * service stops, rather than when keep-alive lapses). `destroy` ends every socket of the pool.
   */
  createOwnFetch(): { fetch: typeof fetch; destroy: () => Promise<void> } {
    const dispatcher = new Agent(this.restricts ? { connect: this.checkedConnector() } : {});
    return {
      fetch: ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) => undiciFetch(input, { ...init, dispatcher })) as unknown as typeof fetch,
      destroy: () => dispatcher.destroy(),
    };
  }

  /** Closes the checked connections' pool (service stop). */
  async close(): Promise<void> {
    await this.dispatcher?.close();
  }

  get restricts(): boolean {
    return this.settings.mode === 'public';
  }

  /** Why `address:port` may not be called, or undefined when it may. */
  refusalKind(address: string, port: number): string | undefined {
    if (!this.restricts) return undefined;
    const kind = nonPublicKind(address);
    if (kind === undefined) return undefined;
    const allowed = this.settings.allow.some((entry) => sameAddress(entry.address, address) && (entry.port === undefined || entry.port === port));
    return allowed ? undefined : kind;
  }

  /**
   * At config time: refuses a URL whose host is a literal IP address the policy would refuse,
   * with a 400 naming `field`. Host names are checked when connecting (DNS may change).
   */
  checkUrl(value: string | undefined, field: string): void {
    if (!this.restricts || value === undefined) return;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return;
    }
    const host = bare(url.hostname);
    if (isIP(host) === 0) return;
    const kind = this.refusalKind(host, Number(url.port) || (url.protocol === 'https:' ? 443 : 80));
    if (kind) throw new InvalidRequestError(`${field} points at ${host}, a ${kind} address; this service only calls public addresses for accounts (HARNESS_OUTBOUND_POLICY=public)`);
  }

  private checkedConnector(): buildConnector.connector {
    const connect = buildConnector({});
    return (options, callback) => {
      const host = bare(options.hostname);
      const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
      const addresses = isIP(host) ? Promise.resolve([host]) : this.resolve(host);
      addresses.then(
        (resolved) => {
          for (const address of resolved) {
            const kind = this.refusalKind(address, port);
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
