import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** "::ffff:1.2.3.4" (an IPv4 client on a dual-stack socket) is the IPv4 address 1.2.3.4 for allowlists. */
export function normaliseAddress(address: string): string {
  const lower = address.toLowerCase();
  if (lower.startsWith('::ffff:') && isIPv4(lower.slice(7))) return lower.slice(7);
  return lower;
}

/**
 * Decides the client address: the socket peer, unless the peer is a trusted proxy, in which case the right-most
 * X-Forwarded-For entry that is not itself a trusted proxy. Untrusted peers cannot spoof an address by header.
 */
export function createClientAddressResolver(trustedCidrs: readonly string[]) {
  if (trustedCidrs.length === 0) return (socketAddress: string | undefined) => normaliseAddress(socketAddress ?? '');
  const trusted = new BlockList();
  for (const cidr of trustedCidrs) {
    const [address, prefix] = cidr.split('/');
    const family = isIPv6(address!) ? 'ipv6' : 'ipv4';
    if (prefix === undefined) trusted.addAddress(address!, family);
    else trusted.addSubnet(address!, Number(prefix), family);
  }
  const isTrusted = (address: string) =>
    (isIPv4(address) && trusted.check(address, 'ipv4')) || (isIPv6(address) && trusted.check(address, 'ipv6'));

  return (socketAddress: string | undefined, forwardedFor?: string): string => {
    const peer = normaliseAddress(socketAddress ?? '');
    if (!isTrusted(peer) || !forwardedFor) return peer;
    const hops = forwardedFor
      .split(',')
      .map((hop) => normaliseAddress(hop.trim()))
      .filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (!isTrusted(hop)) return hop;
    }
    return hops[0] ?? peer;
  };
}
