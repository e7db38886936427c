import { isIP } from 'node:net';

/**
 * `any`: accounts may point their model, channels and workers anywhere (the default, so
 * `npm start` and the tests reach their loopback fixtures). `public`: only public addresses,
 * checked when a config is written (a literal IP) and again on every connection, after DNS
 * resolution and on every redirect.
 */
export type OutboundMode = 'any' | 'public';

/** A destination the operator allows despite `public`: an IP address, and a port or any. */
export interface AllowedDestination {
  address: string;
  port?: number;
}

/**
 * What an account-chosen destination is for. Each kind has its own allow list, so that letting
 * accounts reach the operator's model gateway does not let an account aim an MCP server (any
 * path, any headers) or a webhook at it. `workers` are the tools' `workerUrl`s
 * (`test_external_async`); the search and extract services are the operator's, not an account's,
 * and are not under the policy.
 */
export type DestinationKind = 'model' | 'mcp' | 'webhooks' | 'channels' | 'workers';

export const destinationKinds: readonly DestinationKind[] = ['model', 'mcp', 'webhooks', 'channels', 'workers'];

/** The variable holding one kind's exceptions: `HARNESS_OUTBOUND_ALLOW_MODEL` and so on. */
export function allowVariable(kind: DestinationKind): string {
  return `HARNESS_OUTBOUND_ALLOW_${kind.toUpperCase()}`;
}

export interface OutboundSettings {
  /** `HARNESS_OUTBOUND_POLICY` (default `any`). */
  mode: OutboundMode;
  /** `HARNESS_OUTBOUND_ALLOW`: exceptions to `public` for every kind of destination. */
  allow: AllowedDestination[];
  /**
   * `HARNESS_OUTBOUND_ALLOW_<KIND>`: exceptions for one kind only, e.g. an internal model gateway
   * under `model`, which MCP servers and webhooks then still may not reach.
   */
  allowByKind?: Partial<Record<DestinationKind, AllowedDestination[]>>;
}

export const defaultOutboundSettings: OutboundSettings = { mode: 'any', allow: [] };

function parseDestination(entry: string): AllowedDestination | undefined {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
  const [address, port] = bracketed ? [bracketed[1]!, bracketed[2]] : isIP(entry) ? [entry, undefined] : (entry.match(/^([^:]+):(\d{1,5})$/)?.slice(1) ?? []);
  if (address === undefined || isIP(address) === 0) return undefined;
  if (port === undefined) return { address };
  const number = Number(port);
  return number >= 1 && number <= 65_535 ? { address, port: number } : undefined;
}

function destinationList(environment: NodeJS.ProcessEnv, variable: string): AllowedDestination[] {
  const allow: AllowedDestination[] = [];
  for (const entry of (environment[variable] ?? '').split(',').map((item) => item.trim()).filter(Boolean)) {
    const destination = parseDestination(entry);
    if (!destination) throw new Error(`${variable} entries must be an IP address, address:port or [ipv6]:port (got ${JSON.stringify(entry)}).`);
    allow.push(destination);
  }
  return allow;
}

/**
 * Reads `HARNESS_OUTBOUND_POLICY` (`any` or `public`), `HARNESS_OUTBOUND_ALLOW` (every kind) and
 * `HARNESS_OUTBOUND_ALLOW_MODEL|MCP|WEBHOOKS|CHANNELS|WORKERS` (one kind each), all
 * comma-separated `address`, `address:port` or `[ipv6]:port`; a bad value is a start error naming
 * the variable.
 */
export function outboundSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): OutboundSettings {
  const mode = environment.HARNESS_OUTBOUND_POLICY || 'any';
  if (mode !== 'any' && mode !== 'public') throw new Error(`HARNESS_OUTBOUND_POLICY must be "any" or "public" (got ${JSON.stringify(mode)}).`);
  const allowByKind: Partial<Record<DestinationKind, AllowedDestination[]>> = {};
  for (const kind of destinationKinds) {
    const list = destinationList(environment, allowVariable(kind));
    if (list.length > 0) allowByKind[kind] = list;
  }
  return { mode, allow: destinationList(environment, 'HARNESS_OUTBOUND_ALLOW'), allowByKind };
}
