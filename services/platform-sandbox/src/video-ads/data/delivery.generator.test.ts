import { findAdvertiser } from '../sandbox-accounts';
import { generateAdvertiserTree } from './advertiser-tree.generator';
import { adDayCounters, cumulativeShares, hourShares, splitCounters } from './delivery.generator';

describe('generated delivery', () => {
  it('splits counters into buckets that add up exactly', () => {
    const counters = [10_234, 17, 0, 12_345];
    const buckets = splitCounters(counters, hourShares(99));
    expect(buckets).toHaveLength(24);
    counters.forEach((value, index) => {
      expect(buckets.reduce((total, bucket) => total + (bucket[index] ?? 0), 0)).toBe(value);
    });
    expect(buckets.flat().every((value) => value >= 0)).toBe(true);
    expect(cumulativeShares([1, 1, 2])).toEqual([0, 0.25, 0.5, 1]);
  });

  it('builds the same tree and the same days from the same advertiser id', () => {
    const advertiser = findAdvertiser('7316047235881140226')!;
    const first = generateAdvertiserTree(advertiser);
    const second = generateAdvertiserTree(advertiser);
    expect(second.ads.map((ad) => ad.record)).toEqual(first.ads.map((ad) => ad.record));
    expect(first.campaigns.length).toBeGreaterThanOrEqual(8);
    expect(first.campaigns.length).toBeLessThanOrEqual(20);
    expect(first.ads.length).toBeGreaterThanOrEqual(160);
    expect(first.ads.length).toBeLessThanOrEqual(300);
    const ad = first.ads.find((candidate) => candidate.delivering)!;
    expect(adDayCounters(ad, 20_400, first.currencyFactor)).toEqual(adDayCounters(ad, 20_400, first.currencyFactor));
  });

  it('gives every id a unique value across advertisers', () => {
    const ids = ['7291830415526379521', '7291830415526379522'].flatMap((id) => {
      const tree = generateAdvertiserTree(findAdvertiser(id)!);
      return [
        ...tree.campaigns.map((c) => c.record.campaign_id),
        ...tree.adgroups.map((g) => g.record.adgroup_id),
        ...tree.ads.map((a) => a.record.ad_id),
      ];
    });
    expect(new Set(ids).size).toBe(ids.length);
  });
});
