import { compileIpAllowlist, IP_ALLOWLIST_MAX_ENTRIES, normaliseCidr, parseIpAllowlist } from './ip-allowlist';

describe('ip allowlist', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7/32'],
    [' 203.0.113.7 ', '203.0.113.7/32'],
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['192.168.1.255/31', '192.168.1.254/31'],
    ['2001:DB8::1', '2001:db8::1/128'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001/64', '2001:db8::/64'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1/128'],
    ['::/0', '::/0'],
    ['::1', '::1/128'],
    ['fe80::1:2:3:4/10', 'fe80::/10'],
    ['::ffff:192.0.2.1', '::ffff:192.0.2.1/128'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3/128'],
  ])('normalises %s to %s', (entry, expected) => {
    expect(normaliseCidr(entry)).toBe(expected);
  });

  it.each([
    '',
    'localhost',
    '256.0.0.1',
    '010.0.0.1',
    '10.0.0.0/33',
    '10.0.0.0/',
    '10.0.0.0/-1',
    '10.0.0.0/8/8',
    '10.0.0.0/ 8',
    '2001:db8::/129',
    'fe80::1%eth0',
    '2001:db8:::1',
    '1.2.3.4/0x8',
  ])('rejects %p', (entry) => {
    expect(normaliseCidr(entry)).toBeNull();
  });

  it('validates a whole list, collapsing duplicates and naming invalid entries', () => {
    expect(parseIpAllowlist(['10.0.0.1/8', '10.9.9.9/8', '::1'])).toEqual({
      ok: true,
      entries: ['10.0.0.0/8', '::1/128'],
    });
    expect(parseIpAllowlist(['10.0.0.0/8', 'nope', '1.2.3.4/40'])).toEqual({
      ok: false,
      invalid: ['nope', '1.2.3.4/40'],
    });
    const tooMany = Array.from({ length: IP_ALLOWLIST_MAX_ENTRIES + 1 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    expect(parseIpAllowlist(tooMany).ok).toBe(false);
  });

  it('lets every address through when no allowlist is set', () => {
    expect(compileIpAllowlist([])('198.51.100.1')).toBe(true);
  });

  it('matches IPv4 and IPv6 callers against their networks only', () => {
    const allowed = compileIpAllowlist(['10.0.0.0/8', '203.0.113.7/32', '2001:db8::/32']);
    expect(allowed('10.200.3.4')).toBe(true);
    expect(allowed('203.0.113.7')).toBe(true);
    expect(allowed('203.0.113.8')).toBe(false);
    expect(allowed('11.0.0.1')).toBe(false);
    expect(allowed('2001:db8:1::5')).toBe(true);
    expect(allowed('2001:db9::1')).toBe(false);
    expect(allowed('not an ip')).toBe(false);
    expect(allowed('')).toBe(false);
  });

  it('matches IPv4 callers seen on a dual-stack socket as IPv4-mapped IPv6', () => {
    const allowed = compileIpAllowlist(['10.0.0.0/8']);
    expect(allowed('::ffff:10.1.2.3')).toBe(true);
    expect(allowed('::ffff:11.1.2.3')).toBe(false);
  });
});
