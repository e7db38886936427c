import { isIP } from 'node:net';

/** Why an address is not a public destination. */
export type NonPublicKind =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'carrier-grade NAT'
  | 'link-local'
  | 'unique-local'
  | 'multicast'
  | 'reserved'
  | 'not an IP address';

interface Range {
  base: bigint;
  prefix: number;
  kind: NonPublicKind;
}

function ipv4ToNumber(address: string): bigint | undefined {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) return undefined;
  return parts.reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);
}

/** The 128-bit value of an IPv6 address (zone id dropped, a dotted IPv4 tail accepted). */
function ipv6ToNumber(address: string): bigint | undefined {
  let text = address.replace(/%.*$/, '').toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4ToNumber(dotted[1]!);
    if (v4 === undefined) return undefined;
    text = `${text.slice(0, -dotted[1]!.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] === '' ? [] : halves[0]!.split(':');
  const tail = halves.length === 2 && halves[1] !== '' ? halves[1]!.split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (groups.some((group) => !/^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return groups.reduce((value, group) => (value << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

function v4(cidr: string, kind: NonPublicKind): Range {
  const [base, prefix] = cidr.split('/');
  return { base: ipv4ToNumber(base!)!, prefix: Number(prefix), kind };
}

function v6(cidr: string, kind: NonPublicKind): Range {
  const [base, prefix] = cidr.split('/');
  return { base: ipv6ToNumber(base!)!, prefix: Number(prefix), kind };
}

/** IPv4 ranges that are not public destinations (IANA special-purpose registry). */
const ipv4Ranges: Range[] = [
  v4('0.0.0.0/8', 'unspecified'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'carrier-grade NAT'),
  v4('127.0.0.0/8', 'loopback'),
  // Includes 169.254.169.254, the metadata service of most clouds.
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'),
  v4('192.0.2.0/24', 'reserved'),
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'reserved'),
  v4('198.51.100.0/24', 'reserved'),
  v4('203.0.113.0/24', 'reserved'),
  v4('224.0.0.0/4', 'multicast'),
  // 240.0.0.0/4 holds 255.255.255.255 (broadcast) too.
  v4('240.0.0.0/4', 'reserved'),
];

const ipv6Ranges: Range[] = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('100::/64', 'reserved'),
  v6('2001:db8::/32', 'reserved'),
  v6('fc00::/7', 'unique-local'),
  v6('fe80::/10', 'link-local'),
  // Site-local, deprecated but still routed inside some networks.
  v6('fec0::/10', 'private'),
  v6('ff00::/8', 'multicast'),
];

/** IPv6 forms that carry an IPv4 address, which is what they reach: [range, bit offset of the IPv4 address]. */
const embeddedIpv4: { range: Range; shift: bigint }[] = [
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible (::a.b.c.d).
  { range: v6('::ffff:0:0/96', 'reserved'), shift: 0n },
  { range: v6('::/96', 'reserved'), shift: 0n },
  // NAT64 (RFC 6052 well-known prefix) and 6to4.
  { range: v6('64:ff9b::/96', 'reserved'), shift: 0n },
  { range: v6('2002::/16', 'reserved'), shift: 80n },
];

function inRange(value: bigint, range: Range, bits: number): boolean {
  const shift = BigInt(bits - range.prefix);
  return value >> shift === range.base >> shift;
}

function classifyIpv4(value: bigint): NonPublicKind | undefined {
  return ipv4Ranges.find((range) => inRange(value, range, 32))?.kind;
}

/**
 * Whether an IP address is a public destination: `undefined` when it is, else what it is
 * (loopback, private, link-local...). IPv6 forms that embed an IPv4 address are judged by
 * that address, so `::ffff:127.0.0.1` is loopback.
 */
export function nonPublicKind(address: string): NonPublicKind | undefined {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare.replace(/%.*$/, ''));
  if (family === 4) return classifyIpv4(ipv4ToNumber(bare)!);
  if (family !== 6) return 'not an IP address';
  const value = ipv6ToNumber(bare);
  if (value === undefined) return 'not an IP address';
  const direct = ipv6Ranges.find((range) => inRange(value, range, 128));
  if (direct) return direct.kind;
  for (const { range, shift } of embeddedIpv4) {
    if (inRange(value, range, 128)) return classifyIpv4((value >> shift) & 0xffffffffn) ?? undefined;
  }
  return undefined;
}
