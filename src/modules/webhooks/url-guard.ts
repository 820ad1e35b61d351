// The SSRF guard: webhook URLs may not reach private, loopback, link-local, CGNAT, multicast, unspecified or
// metadata addresses, checked at creation (literal addresses and names resolving to them) and again at
// each connection, after DNS resolution, on the very address the socket then connects to (sender.ts).
// SVC_WEBHOOK_ALLOW_PRIVATE=1 turns it off for local development and tests.
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

// Two lists: a BlockList matches IPv4 addresses against IPv6 rules through their mapped form, so one list
// holding ::ffff:0:0/96 would refuse every IPv4 address.
const blocked4 = new BlockList();
const blocked6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", includes the unspecified address
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, includes 169.254.169.254 (cloud metadata)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments (includes 192.0.0.192, Oracle metadata)
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const)
  blocked4.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['::ffff:0:0', 96], // IPv4-mapped: reaches IPv4 space, including the private ranges above
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local, includes fd00:ec2::254 (AWS metadata)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  blocked6.addSubnet(net, prefix, 'ipv6');

/** A literal address from a URL host (`[::1]` has brackets) or from DNS. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 0) return false;
  return family === 4 ? blocked4.check(bare, 'ipv4') : blocked6.check(bare, 'ipv6');
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
