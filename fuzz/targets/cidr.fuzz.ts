/*
 * The CIDR parser and matcher of the key IP allowlist (libs/store ip-allowlist.ts, spec 5.1 rule 5).
 * Properties: never throws; a normalised entry is a fixpoint (normalising it again gives itself) and node:net
 * accepts it; an allowlist admits an address only when node:net's BlockList says the (mapped) address is inside
 * one of the entries; invalid addresses never pass.
 */
import { BlockList, isIP } from 'node:net';
import { compileIpAllowlist, normaliseCidr, parseIpAllowlist } from '@gateway/store';
import { Input, mutate, violated } from './input';

const SEEDS = [
  '10.0.0.0/8',
  '192.168.1.7',
  '::1',
  '2001:db8::/32',
  '::ffff:10.1.2.3/104',
  'fe80::1%eth0',
  '0.0.0.0/0',
  '::/0',
  '1.2.3.4/33',
  '2001:0db8:0000:0000:0000:ff00:0042:8329/64',
  '::ffff:1.2.3.4',
  '1:2:3:4:5:6:7:8/128',
  '01.2.3.4',
];

export function fuzz(data: Buffer): void {
  const input = new Input(data);
  const entries = Array.from({ length: 1 + (input.byte() % 3) }, () =>
    input.bool() ? mutate(input, input.pick(SEEDS)) : input.string(48),
  );
  const address = input.bool() ? mutate(input, input.pick(SEEDS).split('/')[0]!) : input.string(48);
  const normalised: string[] = [];
  for (const entry of entries) {
    const cidr = normaliseCidr(entry);
    if (cidr === null) continue;
    if (normaliseCidr(cidr) !== cidr)
      violated('normalised CIDR is not a fixpoint', { entry, cidr, again: normaliseCidr(cidr) });
    const [network, prefix] = cidr.split('/') as [string, string];
    if (isIP(network) === 0) violated('normalised network is not an address', { entry, cidr });
    new BlockList().addSubnet(network, Number(prefix), isIP(network) === 4 ? 'ipv4' : 'ipv6');
    normalised.push(cidr);
  }
  parseIpAllowlist(entries);
  const allows = compileIpAllowlist(normalised);
  const admitted = allows(address);
  if (normalised.length === 0) return;
  const family = isIP(address);
  if (admitted && (family === 0 || address.includes('%')))
    violated('invalid address admitted', { normalised, address });
  if (!admitted) return;
  // Oracle: each entry alone, checked with BlockList on the address and its IPv4-mapped form.
  const inside = normalised.some((cidr) => {
    const [network, prefix] = cidr.split('/') as [string, string];
    const list = new BlockList();
    const type = isIP(network) === 4 ? 'ipv4' : 'ipv6';
    list.addSubnet(network, Number(prefix), type);
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    return list.check(address, family === 4 ? 'ipv4' : 'ipv6') || (mapped !== undefined && list.check(mapped, 'ipv4'));
  });
  if (!inside) violated('address admitted outside every entry', { normalised, address });
}
