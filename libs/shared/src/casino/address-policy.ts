import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where the relay may send a casino call. The wallet POSTs a signed body carrying the player's
 * wallet token to whatever walletUrl a casino record names, so in production that address must be
 * a public one: never loopback, private, link-local (cloud metadata at 169.254.169.254), shared or
 * multicast space, unless CASINO_PRIVATE_ADDRESS_ALLOWLIST names it (a host name, an address or a
 * CIDR range); an IPv6 address carrying an IPv4 one (NAT64, 6to4) is judged by the IPv4 one. The
 * check runs when a walletUrl is saved and again on the address each call connects to, so a name
 * that later resolves elsewhere (DNS rebinding) is refused too.
 * Local runs and tests (NODE_ENV other than production) allow every address.
 */
export class CasinoAddressPolicy {
  private readonly allowedHosts = new Set<string>();
  private readonly allowedRanges = new net.BlockList();

  constructor(
    readonly enforced: boolean,
    allowlist: string,
  ) {
    for (const entry of allowlist.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean)) {
      const [address, bits] = entry.split('/');
      const family = net.isIP(address);
      if (family === 0) this.allowedHosts.add(entry);
      else if (bits === undefined) this.allowedRanges.addAddress(address, family === 4 ? 'ipv4' : 'ipv6');
      else this.allowedRanges.addSubnet(address, Number(bits), family === 4 ? 'ipv4' : 'ipv6');
    }
  }

  static fromConfig(config: { NODE_ENV: string; CASINO_PRIVATE_ADDRESS_ALLOWLIST: string }): CasinoAddressPolicy {
    return new CasinoAddressPolicy(config.NODE_ENV === 'production', config.CASINO_PRIVATE_ADDRESS_ALLOWLIST);
  }

  /** Why `address` (an IP) may not be called, or null when it may. */
  refusal(address: string, host?: string): string | null {
    if (!this.enforced) return null;
    if (host !== undefined && this.allowedHosts.has(host.toLowerCase())) return null;
    const family = net.isIP(address);
    if (family === 0) return 'not an IP address';
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (this.allowedRanges.check(address, type)) return null;
    if (NON_PUBLIC.check(address, type)) return `${address} is not a public address`;
    // An IPv4 address carried inside an IPv6 one (NAT64, 6to4) is the one actually reached.
    const carried = type === 'ipv6' ? embeddedIpv4(address) : null;
    return carried !== null && this.refusal(carried) !== null ? `${address} reaches ${carried}, which is not a public address` : null;
  }

  /** Checks a walletUrl's host as saved: an address literal, or every address its name resolves to now. */
  async urlRefusal(walletUrl: string): Promise<string | null> {
    if (!this.enforced) return null;
    let host: string;
    try {
      host = new URL(walletUrl).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return 'not a valid URL';
    }
    if (this.allowedHosts.has(host.toLowerCase())) return null;
    if (net.isIP(host)) return this.refusal(host);
    // A name that does not resolve yet is accepted here; every call checks where it connects.
    const addresses = await dns.promises.lookup(host, { all: true }).catch(() => []);
    for (const { address } of addresses) {
      const problem = this.refusal(address, host);
      if (problem) return `${host} resolves to ${address}, which is not a public address`;
    }
    return null;
  }

  /** A `lookup` for net.connect that refuses non-public addresses (DNS rebinding included). */
  readonly lookup: net.LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const list = addresses as dns.LookupAddress[];
      for (const { address } of list) {
        const problem = this.refusal(address, hostname);
        if (problem) return callback(Object.assign(new Error(`casino address refused: ${problem}`), { code: 'EADDRNOTALLOWED' }), '', 4);
      }
      if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/**
 * The IPv4 address a NAT64 (64:ff9b::/96, RFC 6052) or 6to4 (2002::/16, RFC 3056) address leads
 * to, or null. A DNS64 resolver gives every public IPv4 casino such an address in an IPv6-only
 * cluster, so the prefix itself is not refused: what it carries is checked.
 */
function embeddedIpv4(address: string): string | null {
  const parts = ipaddr.IPv6.parse(address).parts;
  const v4 = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  if (parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((x) => x === 0)) return v4(parts[6], parts[7]);
  if (parts[0] === 0x2002) return v4(parts[1], parts[2]);
  return null;
}

// (IPv4-mapped IPv6 addresses, ::ffff:7f00:1, are checked against the IPv4 ranges by BlockList.)
const NON_PUBLIC = new net.BlockList();
for (const [range, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(range, bits, 'ipv4');
}
for (const [range, bits] of [
  // IPv4-compatible (deprecated; holds :: and ::1), discard-only, local-use NAT64, site-local.
  ['::', 96],
  ['100::', 64],
  ['64:ff9b:1::', 48],
  ['fec0::', 10],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(range, bits, 'ipv6');
}
