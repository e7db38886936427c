import { isIPv4 } from 'node:net';
import { hostname as machineName, networkInterfaces } from 'node:os';

/**
 * Recognises a completion URL that points back at the mock worker itself. The spec warns
 * that completing at the mock worker's address "recurses into the mock and leaves the row in
 * `processing`": the usual cause is a `completionBaseUrl` set to the worker's URL instead of
 * the agent service's. The same listener answers to several names (127.0.0.1, localhost,
 * [::1], and every interface address when it listens on all of them), so an origin check by
 * string alone would miss most of them.
 */

/** Where the worker listens: the host it was given and the port it got. */
export interface ListenAddress {
  host: string;
  port: number;
}

const wildcardHosts = new Set(['', '0.0.0.0', '::', '[::]']);

/** Lower case, no brackets, no trailing dot, IPv4-mapped IPv6 written as IPv4. */
export function normalizeHost(host: string): string {
  let name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(.+)$/.exec(name)?.[1];
  if (name.includes(':') && mapped !== undefined) {
    if (isIPv4(mapped)) {
      name = mapped;
    } else {
      // The URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1.
      const groups = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(mapped);
      if (groups) {
        const high = parseInt(groups[1] ?? '0', 16);
        const low = parseInt(groups[2] ?? '0', 16);
        name = [high >> 8, high & 255, low >> 8, low & 255].join('.');
      }
    }
  }
  return name;
}

/** Names that reach this machine over loopback (and 0.0.0.0 / ::, which Linux treats so). */
export function isLoopbackHost(host: string): boolean {
  const name = normalizeHost(host);
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (name === '::1' || name === '::' || name === '0.0.0.0') return true;
  return isIPv4(name) && name.startsWith('127.');
}

function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** The addresses of this machine's interfaces, plus its host name. */
function localNames(): Set<string> {
  const names = new Set<string>([normalizeHost(machineName())]);
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) names.add(normalizeHost(address.address));
  }
  return names;
}

/** True when a request to `url` would reach the worker listening at `listen`. */
export function pointsAtSelf(url: string, listen: ListenAddress): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (portOf(parsed) !== listen.port) return false;
  const target = normalizeHost(parsed.hostname);
  const listenHost = normalizeHost(listen.host);
  if (target === listenHost) return true;
  const listensOnAll = wildcardHosts.has(listenHost);
  if (isLoopbackHost(target)) return listensOnAll || isLoopbackHost(listenHost);
  return listensOnAll && localNames().has(target);
}
