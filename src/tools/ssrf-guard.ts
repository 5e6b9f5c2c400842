/**
 * Which addresses fetch_url may connect to: public unicast only. Checked on every resolved address
 * (after DNS) and again on every redirect; the connection is then pinned to the checked address so
 * a second DNS answer cannot swap in a private one (DNS rebinding).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Ranges that are not the public internet (RFC 6890 special-purpose registry, the parts that matter). */
const BLOCKED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const BLOCKED_V6: Array<[string, number]> = [
  ['::', 96], // unspecified, loopback (::1) and IPv4-compatible addresses
  ['64:ff9b::', 96], // NAT64: would reach IPv4 targets, checked via the embedded address below
  ['100::', 64], // discard-only
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (ULA)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const blockList = new BlockList();
for (const [net, prefix] of BLOCKED_V4) blockList.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of BLOCKED_V6) blockList.addSubnet(net, prefix, 'ipv6');

/** True when the address must not be contacted. IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as IPv4. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return blockList.check(bare, 'ipv4');
  if (family !== 6) return true;
  const mapped = embeddedIpv4(bare);
  if (mapped && blockList.check(mapped, 'ipv4')) return true;
  return blockList.check(bare, 'ipv6');
}

/** The IPv4 address inside ::ffff:x.x.x.x / ::ffff:hhhh:hhhh, if any. */
function embeddedIpv4(v6: string): string | undefined {
  const lower = v6.toLowerCase();
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const hi = Number.parseInt(hex[1] ?? '0', 16);
  const lo = Number.parseInt(hex[2] ?? '0', 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a hostname to all its addresses (dns.lookup, as the OS would). Injectable for tests. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const all = await dnsLookup(hostname, { all: true, verbatim: true });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export class BlockedAddressError extends Error {}

/**
 * Resolves `hostname` (or takes an IP literal as is) and returns the address to connect to. Refuses
 * when any resolved address is blocked: a name that also points inside the network is not public.
 */
export async function resolvePublicAddress(
  hostname: string,
  options: { resolver?: Resolver; isAllowed?: (address: string) => boolean } = {},
): Promise<ResolvedAddress> {
  const isAllowed = options.isAllowed ?? ((address: string) => !isBlockedAddress(address));
  const bare = hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(bare);
  const addresses: ResolvedAddress[] = literal
    ? [{ address: bare, family: literal === 6 ? 6 : 4 }]
    : await (options.resolver ?? systemResolver)(bare);
  if (addresses.length === 0) throw new BlockedAddressError(`${hostname} did not resolve to any address`);
  const refused = addresses.find((a) => !isAllowed(a.address));
  if (refused) {
    throw new BlockedAddressError(
      `${hostname} resolves to ${refused.address}, a private, loopback or otherwise non-public address`,
    );
  }
  return addresses[0] as ResolvedAddress;
}
