/**
 * WEB_TRUSTED_PROXIES: the addresses whose WEB_AUTH_HEADER (and X-Forwarded-Proto) Scout believes.
 * Parsed with ipaddr.js (a maintained parser of IPv4, IPv6 and CIDR ranges); an IPv4 address seen as
 * IPv4-mapped IPv6 (::ffff:10.0.0.1) matches its IPv4 range.
 */
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

export class TrustedProxies {
  readonly #ranges: Range[];

  constructor(entries: readonly string[]) {
    this.#ranges = entries.map((entry) => {
      if (entry.includes('/')) return ipaddr.parseCIDR(entry);
      const address = ipaddr.parse(entry);
      return [address, address.kind() === 'ipv4' ? 32 : 128];
    });
  }

  /** Which entries are not addresses or ranges (by position: the value is not echoed). */
  static problems(entries: readonly string[]): number[] {
    return entries.flatMap((entry, i) => {
      try {
        if (entry.includes('/')) ipaddr.parseCIDR(entry);
        else ipaddr.parse(entry);
        return [];
      } catch {
        return [i + 1];
      }
    });
  }

  trusts(remoteAddress: string | undefined): boolean {
    if (!remoteAddress || this.#ranges.length === 0) return false;
    let address: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      address = ipaddr.process(remoteAddress);
    } catch {
      return false;
    }
    return this.#ranges.some(
      ([range, bits]) => range.kind() === address.kind() && address.match([range, bits] as never),
    );
  }
}
