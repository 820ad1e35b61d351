// The SSRF guard: a webhook may only reach a globally reachable address. Checked at creation (literal
// addresses and names resolving to them) and again at each connection, after DNS resolution, on the very
// address the socket then connects to (sender.ts). SVC_WEBHOOK_ALLOW_PRIVATE=1 turns it off for local
// development and tests.
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

export interface RefusedRange {
  /** Network and prefix length, `a.b.c.d/n` or `x::/n`. */
  range: string;
  name: string;
  /**
   * The range carries an IPv4 address in its last 32 bits and is refused only when that address is
   * (NAT64's well-known prefix reaches the public IPv4 internet from IPv6-only networks).
   */
  embedsIpv4?: true;
}

/**
 * Every range a webhook may not reach: the rows of the IANA IPv4 and IPv6 special-purpose address
 * registries (RFC 6890 and later) that are not globally reachable, multicast, and the IPv6 space outside
 * 2000::/3, which IANA has not allocated for global unicast. Where a registry block holds a few globally
 * reachable anycast services (192.0.0.9, 2001:1::1 and the like) the whole block is refused: no webhook
 * receiver lives on a protocol anycast address. The tests walk this table (test/webhooks/ssrf.test.ts).
 */
export const REFUSED_RANGES: readonly RefusedRange[] = [
  { range: '0.0.0.0/8', name: 'this network, includes the unspecified address' },
  { range: '10.0.0.0/8', name: 'private use' },
  { range: '100.64.0.0/10', name: 'shared address space (CGNAT)' },
  { range: '127.0.0.0/8', name: 'loopback' },
  { range: '169.254.0.0/16', name: 'link-local, includes 169.254.169.254 (cloud metadata)' },
  { range: '172.16.0.0/12', name: 'private use' },
  { range: '192.0.0.0/24', name: 'IETF protocol assignments, includes 192.0.0.192 (Oracle metadata)' },
  { range: '192.0.2.0/24', name: 'documentation (TEST-NET-1)' },
  { range: '192.88.99.0/24', name: '6to4 relay anycast (deprecated)' },
  { range: '192.168.0.0/16', name: 'private use' },
  { range: '198.18.0.0/15', name: 'benchmarking' },
  { range: '198.51.100.0/24', name: 'documentation (TEST-NET-2)' },
  { range: '203.0.113.0/24', name: 'documentation (TEST-NET-3)' },
  { range: '224.0.0.0/4', name: 'multicast' },
  { range: '240.0.0.0/4', name: 'reserved, includes the limited broadcast address' },
  { range: '64:ff9b::/96', name: 'NAT64 well-known prefix', embedsIpv4: true },
  { range: '::/128', name: 'unspecified' },
  { range: '::1/128', name: 'loopback' },
  { range: '::/96', name: 'IPv4-compatible (deprecated)' },
  { range: '::ffff:0:0/96', name: 'IPv4-mapped: reaches IPv4 space, private ranges included' },
  { range: '::ffff:0:0:0/96', name: 'IPv4-translated (SIIT)' },
  { range: '64:ff9b:1::/48', name: 'local-use IPv4/IPv6 translation' },
  { range: '100::/64', name: 'discard-only' },
  { range: '100:0:0:1::/64', name: 'dummy prefix' },
  { range: '2001::/23', name: 'IETF protocol assignments' },
  { range: '2001::/32', name: 'Teredo: tunnels to an IPv4 address' },
  { range: '2001:2::/48', name: 'benchmarking' },
  { range: '2001:10::/28', name: 'ORCHID (deprecated)' },
  { range: '2001:db8::/32', name: 'documentation' },
  { range: '2002::/16', name: '6to4: tunnels to an IPv4 address' },
  { range: '3fff::/20', name: 'documentation' },
  { range: '5f00::/16', name: 'segment routing (SRv6) SIDs' },
  { range: 'fc00::/7', name: 'unique local, includes fd00:ec2::254 (AWS metadata)' },
  { range: 'fe80::/10', name: 'link-local' },
  { range: 'fec0::/10', name: 'site-local (deprecated)' },
  { range: 'ff00::/8', name: 'multicast' },
  { range: '::/3', name: 'outside global unicast (2000::/3)' },
  { range: '4000::/2', name: 'outside global unicast (2000::/3)' },
  { range: '8000::/1', name: 'outside global unicast (2000::/3)' },
];

// Three lists. A BlockList matches an IPv4-mapped IPv6 address against IPv4 rules, so IPv4 and IPv6 rules
// are kept apart; the NAT64 prefix is looked up first, and decided by the IPv4 address it carries.
const blocked4 = new BlockList();
const blocked6 = new BlockList();
const embedding = new BlockList();
for (const { range, embedsIpv4 } of REFUSED_RANGES) {
  const [net, bits] = range.split('/') as [string, string];
  const family = isIP(net) === 4 ? 'ipv4' : 'ipv6';
  (embedsIpv4 ? embedding : family === 'ipv4' ? blocked4 : blocked6).addSubnet(net, Number(bits), family);
}

/** The IPv4 address in the last 32 bits of an IPv6 address. */
function lastIpv4(v6: string): string {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(v6);
  if (dotted) return dotted[1]!;
  const groups = v6.includes('::') ? v6.split('::')[1]!.split(':').filter(Boolean) : v6.split(':');
  const [hi = '0', lo = '0'] = groups.length >= 2 ? groups.slice(-2) : ['0', ...groups];
  const n = (parseInt(hi, 16) << 16) | parseInt(lo, 16);
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** A literal address from a URL host (`[::1]` has brackets) or from DNS. */
export function isBlockedAddress(address: string): boolean {
  const unbracketed = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const bare = unbracketed.split('%')[0]!; // a zone id (fe80::1%eth0) says which link, not which address
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 4) return blocked4.check(bare, 'ipv4');
  if (embedding.check(bare, 'ipv6')) return blocked4.check(lastIpv4(bare.toLowerCase()), 'ipv4');
  return blocked6.check(bare, 'ipv6');
}

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
}

const DNS_TIMEOUT_MS = 2000;

/**
 * Why this host may not be a webhook target, or `undefined` when it may. A name that does not resolve now
 * is accepted (DNS may be down, or the name not yet published): the connect-time check still applies.
 */
export async function hostRefusal(hostname: string): Promise<string | undefined> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare)) return isBlockedAddress(bare) ? 'points at a private or reserved address' : undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const addresses = await Promise.race([
      lookup(bare, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('dns timeout')), DNS_TIMEOUT_MS);
      }),
    ]);
    if (addresses.some((a) => isBlockedAddress(a.address)))
      return 'resolves to a private or reserved address';
    return undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
