import { createHash } from 'node:crypto';
import { PROVIDER_IDS } from '@gateway/store';
import { providerBit, refreshAfterMs } from './key-entry';

describe('providerBit', () => {
  it('gives every provider id a bit of its own, and nothing else a bit', () => {
    const bits = PROVIDER_IDS.map(providerBit);
    expect(new Set(bits).size).toBe(PROVIDER_IDS.length);
    for (const bit of bits) expect(bit > 0 && (bit & (bit - 1)) === 0).toBe(true);
    for (const other of ['', 'Video-Ads', 'video-ads/', 'marketplace-']) expect(providerBit(other)).toBe(0);
  });
});

describe('refreshAfterMs', () => {
  const hashes = Array.from({ length: 500 }, (_, i) => createHash('sha256').update(`key-${i}`).digest('hex'));

  it('spreads the reloads of keys loaded together over the last quarter of the interval', () => {
    const due = hashes.map((hash) => refreshAfterMs(hash, 60_000));
    expect(Math.min(...due)).toBeGreaterThanOrEqual(45_000);
    expect(Math.max(...due)).toBeLessThanOrEqual(60_000);
    // No second of the window takes more than a small share of the keys.
    const perSecond = new Map<number, number>();
    for (const ms of due) perSecond.set(Math.floor(ms / 1000), (perSecond.get(Math.floor(ms / 1000)) ?? 0) + 1);
    expect(perSecond.size).toBeGreaterThanOrEqual(14);
    expect(Math.max(...perSecond.values())).toBeLessThan(hashes.length / 5);
  });

  it('gives one key the same delay every time, and the whole interval to a hash it cannot read', () => {
    expect(refreshAfterMs(hashes[0]!, 60_000)).toBe(refreshAfterMs(hashes[0]!, 60_000));
    expect(refreshAfterMs('not-hex', 60_000)).toBe(60_000);
  });
});
