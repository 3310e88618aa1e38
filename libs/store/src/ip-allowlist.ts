import { BlockList, isIP } from 'node:net';

/** More entries than this is a sign of misuse (and makes every decision slower). */
export const IP_ALLOWLIST_MAX_ENTRIES = 100;

export type IpAllowlistParse = { ok: true; entries: string[] } | { ok: false; invalid: string[] };

/**
 * Canonical CIDR for one allowlist entry (IPv4 or IPv6 CIDR, or a bare address), or null when invalid.
 * Host bits are cleared, IPv6 is written as RFC 5952 text and bare addresses become /32 or /128,
 * so equal networks are stored equally.
 */
export function normaliseCidr(entry: string): string | null {
  const text = entry.trim();
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1);
  // Zone ids (fe80::1%eth0) name an interface of one host; they mean nothing in an allowlist.
  if (address.includes('%')) return null;
  const family = isIP(address);
  if (family === 0) return null;
  const bits = family === 4 ? 32 : 128;
  let prefix = bits;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText)) return null;
    prefix = Number(prefixText);
    if (prefix > bits) return null;
  }
  if (family === 4) {
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    return `${formatIpv4((ipv4ToNumber(address) & mask) >>> 0)}/${prefix}`;
  }
  const mask = prefix === 0 ? 0n : ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - prefix)) - 1n);
  return `${formatIpv6(ipv6ToBigInt(address) & mask)}/${prefix}`;
}

/** Validates and normalises a whole allowlist (spec 5.1 rule 5); duplicates collapse. Invalid entries are listed. */
export function parseIpAllowlist(entries: readonly string[]): IpAllowlistParse {
  const invalid: string[] = [];
  const normalised = new Set<string>();
  for (const entry of entries) {
    const cidr = typeof entry === 'string' ? normaliseCidr(entry) : null;
    if (cidr === null) invalid.push(String(entry));
    else normalised.add(cidr);
  }
  if (invalid.length > 0) return { ok: false, invalid };
  if (normalised.size > IP_ALLOWLIST_MAX_ENTRIES) {
    return { ok: false, invalid: [`more than ${IP_ALLOWLIST_MAX_ENTRIES} entries`] };
  }
  return { ok: true, entries: [...normalised] };
}

/**
 * A matcher for a stored (normalised) allowlist. An empty list means the allowlist is not enabled
 * (spec 5.1 rule 5: it is optional), so every address passes. Invalid addresses never pass.
 */
export function compileIpAllowlist(entries: readonly string[]): (address: string) => boolean {
  if (entries.length === 0) return () => true;
  const list = new BlockList();
  for (const entry of entries) {
    const cidr = normaliseCidr(entry);
    if (cidr === null) continue;
    const [network, prefix] = cidr.split('/') as [string, string];
    list.addSubnet(network, Number(prefix), isIP(network) === 4 ? 'ipv4' : 'ipv6');
  }
  return (address: string) => {
    if (typeof address !== 'string' || address.includes('%')) return false;
    const family = isIP(address);
    if (family === 0) return false;
    // A dual-stack socket reports IPv4 callers as ::ffff:a.b.c.d; match them against IPv4 entries too.
    const mapped = family === 6 ? ipv4FromMapped(address) : null;
    if (mapped !== null && list.check(mapped, 'ipv4')) return true;
    return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
}

function ipv4ToNumber(address: string): number {
  return address.split('.').reduce((acc, octet) => ((acc << 8) | Number(octet)) >>> 0, 0);
}

function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
}

function ipv6ToBigInt(address: string): bigint {
  let text = address.toLowerCase();
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = ipv4ToNumber(tail);
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups =
    rest === undefined
      ? headGroups
      : [...headGroups, ...Array<string>(8 - headGroups.length - restGroups.length).fill('0'), ...restGroups];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function formatIpv6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // RFC 5952 4.2.3: IPv4-mapped addresses keep the dotted tail.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `::ffff:${formatIpv4(((groups[6]! << 16) | groups[7]!) >>> 0)}`;
  }
  // RFC 5952 4.2: the longest run (first on a tie) of two or more zero groups becomes "::".
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

function ipv4FromMapped(address: string): string | null {
  const value = ipv6ToBigInt(address);
  if (value >> 32n !== 0xffffn) return null;
  return formatIpv4(Number(value & 0xffffffffn));
}
