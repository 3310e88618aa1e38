import type { AdModel } from './advertiser-tree.generator';
import { hashSeed, Prng } from './prng';

/**
 * Additive counters of one (ad, day); every report metric is a sum of these or a ratio of sums, so any
 * grouping (campaign, day, hour, audience) adds up exactly. Money is held in cents of the advertiser currency.
 */
export const AD_COUNTERS = [
  'impressions',
  'clicks',
  'conversion',
  'spend_cents',
  'video_play_actions',
  'video_watched_2s',
  'video_watched_6s',
  'video_views_p25',
  'video_views_p50',
  'video_views_p75',
  'video_views_p100',
  'likes',
  'comments',
  'shares',
  'follows',
  'profile_visits',
  'complete_payment',
  'complete_payment_value_cents',
] as const;

export type AdCounter = (typeof AD_COUNTERS)[number];
export const AD_COUNTER: Record<AdCounter, number> = Object.fromEntries(
  AD_COUNTERS.map((name, index) => [name, index]),
) as Record<AdCounter, number>;

/** Share of an ad's days without any delivery (rows with nothing are not reported, as on the platform). */
const IDLE_DAY_RATE = 0.05;
const WEEKDAY_FACTOR = [1.1, 0.92, 0.95, 1, 1, 1.05, 1.15]; // Sunday first

/** One day of one ad, or undefined when it did not deliver that day. */
export function adDayCounters(ad: AdModel, epochDay: number, currencyFactor: number): number[] | undefined {
  if (!ad.delivering || epochDay < ad.createDay) return undefined;
  const prng = new Prng(hashSeed(ad.record.ad_id) ^ Math.imul(epochDay, 0x9e3779b1));
  if (prng.chance(IDLE_DAY_RATE)) return undefined;
  const p = ad.profile;
  const weekday = WEEKDAY_FACTOR[(epochDay + 4) % 7] ?? 1;
  const season = 1 + 0.25 * Math.sin((2 * Math.PI * epochDay) / 365);
  const impressions = Math.max(1, Math.round(p.impressions * weekday * season * prng.range(0.6, 1.4)));
  const clicks = Math.round(impressions * p.ctr * prng.range(0.8, 1.2));
  const conversion = Math.round(clicks * p.cvr * prng.range(0.6, 1.4));
  const spendCents = Math.round((impressions / 1000) * p.cpmUsd * currencyFactor * prng.range(0.85, 1.15) * 100);
  const plays = Math.round(impressions * p.playRate);
  const watched2s = Math.round(plays * prng.range(0.55, 0.7));
  const likes = Math.round(plays * prng.range(0.01, 0.04));
  const payments = Math.round(conversion * p.payRate);
  const paymentValueCents = Math.round(payments * p.orderValueUsd * currencyFactor * prng.range(0.8, 1.2) * 100);
  return [
    impressions,
    clicks,
    conversion,
    spendCents,
    plays,
    watched2s,
    Math.round(watched2s * 0.55),
    Math.round(plays * 0.42),
    Math.round(plays * 0.27),
    Math.round(plays * 0.17),
    Math.round(plays * 0.09),
    likes,
    Math.round(likes * 0.08),
    Math.round(likes * 0.12),
    Math.round(plays * 0.002),
    Math.round(plays * 0.008),
    payments,
    paymentValueCents,
  ];
}

// Share of a day's delivery per hour (local time): quiet nights, evening peak.
const DIURNAL = [
  0.5, 0.3, 0.2, 0.15, 0.15, 0.2, 0.4, 0.7, 0.9, 1, 1, 1.05, 1.1, 1.05, 1, 1, 1.05, 1.15, 1.3, 1.45, 1.5, 1.4, 1.1, 0.8,
];

/** Cumulative bucket shares, from 0 to exactly 1: the input of {@link splitCounters}. */
export function cumulativeShares(weights: readonly number[]): number[] {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const cumulative = [0];
  let running = 0;
  for (let i = 0; i < weights.length; i++) {
    running += weights[i] ?? 0;
    cumulative.push(i === weights.length - 1 ? 1 : running / total);
  }
  return cumulative;
}

/** Hour shares of one (entity, day): the diurnal curve with a little per-day jitter. */
export function hourShares(seed: number): number[] {
  const prng = new Prng(seed ^ 0x5bd1e995);
  return cumulativeShares(DIURNAL.map((weight) => weight * prng.range(0.8, 1.2)));
}

/**
 * Splits integer counters into buckets so that the buckets add up exactly to the input:
 * bucket b gets floor(v * C[b+1]) - floor(v * C[b]).
 */
export function splitCounters(counters: readonly number[], cumulative: readonly number[]): number[][] {
  const buckets: number[][] = [];
  for (let b = 0; b < cumulative.length - 1; b++) {
    const low = cumulative[b] ?? 0;
    const high = cumulative[b + 1] ?? 1;
    buckets.push(counters.map((value) => Math.floor(value * high) - Math.floor(value * low)));
  }
  return buckets;
}
