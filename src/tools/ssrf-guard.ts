/**
 * Which addresses fetch_url may connect to: public unicast only. Checked on every resolved address
 * (after DNS) and again on every redirect; the connection is then pinned to the checked address so
 * a second DNS answer cannot swap in a private one (DNS rebinding).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The ranges come from ipaddr.js (maintained, follows the IANA special-purpose registries for v4 and
 * v6): only what it calls `unicast` is the public internet. A hand-written list missed NAT64
 * local-use, 6to4 and Teredo; the library's table is kept current by people who track the registries.
 */
const PUBLIC_RANGE = 'unicast';
/** NAT64 well-known prefix (RFC 6052): DNS64 networks map public IPv4 hosts here, so judge the embedded address. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
/** IPv4-compatible addresses (::a.b.c.d, deprecated): the library calls them unicast, they are not public. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * True when the address must not be contacted. Addresses that carry an IPv4 address inside
 * (IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by that IPv4 address;
 * every other special range (NAT64 local-use 64:ff9b:1::/48, Teredo 2001::/32, ULA, link-local …) is refused.
 */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return true;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return parsed.range() !== PUBLIC_RANGE;
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIpv4(v6);
  if (embedded) return embedded.range() !== PUBLIC_RANGE;
  if (v6.match(IPV4_COMPATIBLE)) return true;
  return v6.range() !== PUBLIC_RANGE;
}

/** The IPv4 address a mapped, well-known-NAT64 or 6to4 address stands for, if it is one. */
function embeddedIpv4(v6: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const bytes = v6.toByteArray();
  if (v6.isIPv4MappedAddress() || v6.match(NAT64_WELL_KNOWN)) {
    return ipaddr.fromByteArray(bytes.slice(12, 16)) as ipaddr.IPv4;
  }
  // 6to4: 2002:AABB:CCDD::/48 is the site behind IPv4 AA.BB.CC.DD.
  if (v6.range() === '6to4') return ipaddr.fromByteArray(bytes.slice(2, 6)) as ipaddr.IPv4;
  return undefined;
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
