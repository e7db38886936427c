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

export interface OutboundSettings {
  /** `HARNESS_OUTBOUND_POLICY` (default `any`). */
  mode: OutboundMode;
  /** `HARNESS_OUTBOUND_ALLOW`: exceptions to `public`, e.g. an internal model gateway. */
  allow: AllowedDestination[];
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

/**
 * Reads `HARNESS_OUTBOUND_POLICY` (`any` or `public`) and `HARNESS_OUTBOUND_ALLOW` (comma-separated
 * `address`, `address:port` or `[ipv6]:port`); a bad value is a start error naming the variable.
 */
export function outboundSettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): OutboundSettings {
  const mode = environment.HARNESS_OUTBOUND_POLICY || 'any';
  if (mode !== 'any' && mode !== 'public') throw new Error(`HARNESS_OUTBOUND_POLICY must be "any" or "public" (got ${JSON.stringify(mode)}).`);
  const allow: AllowedDestination[] = [];
  for (const entry of (environment.HARNESS_OUTBOUND_ALLOW ?? '').split(',').map((item) => item.trim()).filter(Boolean)) {
    const destination = parseDestination(entry);
    if (!destination) throw new Error(`HARNESS_OUTBOUND_ALLOW entries must be an IP address, address:port or [ipv6]:port (got ${JSON.stringify(entry)}).`);
    allow.push(destination);
  }
  return { mode, allow };
}
