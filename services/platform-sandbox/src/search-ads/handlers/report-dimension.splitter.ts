import { hashSeed, Prng } from '../../video-ads/data/prng';
import type { CampaignModel, DayMetrics } from '../data/search-ads-data.generator';

/** The groupBy dimensions of the campaign report: each splits a campaign's row into one row per value. */
export const GROUP_BY_DIMENSIONS = [
  'countryOrRegion',
  'adminArea',
  'locality',
  'deviceClass',
  'ageRange',
  'gender',
] as const;
export type Dimension = (typeof GROUP_BY_DIMENSIONS)[number];

const DEVICE_CLASSES = ['IPHONE', 'IPAD'] as const;
const AGE_RANGES = ['18-24', '25-34', '35-44', '45-54', '55-64', '65+'] as const;
const GENDERS = ['F', 'M'] as const;

/** Admin areas and their localities per storefront, in the platform's `CC|AREA` and `CC|AREA|City` forms. */
const PLACES: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  US: { CA: ['Cupertino', 'Los Angeles'], NY: ['New York', 'Buffalo'], TX: ['Austin'] },
  CA: { ON: ['Toronto', 'Ottawa'], QC: ['Montreal'] },
  MX: { CMX: ['Mexico City'], JAL: ['Guadalajara'] },
  DE: { BE: ['Berlin'], BY: ['Munich', 'Nuremberg'] },
  FR: { IDF: ['Paris'], ARA: ['Lyon', 'Grenoble'] },
  ES: { MD: ['Madrid'], CT: ['Barcelona'] },
  IT: { LAZ: ['Rome'], LOM: ['Milan'] },
  NL: { NH: ['Amsterdam'], ZH: ['Rotterdam', 'The Hague'] },
  GB: { ENG: ['London', 'Manchester'], SCT: ['Edinburgh'] },
  IE: { D: ['Dublin'], CO: ['Cork'] },
};

function adminAreas(country: string): string[] {
  return Object.keys(PLACES[country] ?? {}).map((area) => `${country}|${area}`);
}

function localities(country: string): string[] {
  return Object.entries(PLACES[country] ?? {}).flatMap(([area, cities]) =>
    cities.map((city) => `${country}|${area}|${city}`),
  );
}

/** The values of a dimension within one storefront, in the order rows come. */
export function dimensionValues(dimension: Dimension, country: string): readonly string[] {
  switch (dimension) {
    case 'countryOrRegion':
      return [country];
    case 'adminArea':
      return adminAreas(country);
    case 'locality':
      return localities(country);
    case 'deviceClass':
      return DEVICE_CLASSES;
    case 'ageRange':
      return AGE_RANGES;
    case 'gender':
      return GENDERS;
  }
}

/**
 * Splits integers by weight so that the parts add up exactly: each part is the rounded running share minus the
 * rounded share before it.
 */
export function splitByWeight(value: number, weights: readonly number[]): number[] {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let before = 0;
  return weights.map((weight) => {
    const part = Math.round((value * (before + weight)) / total) - Math.round((value * before) / total);
    before += weight;
    return part;
  });
}

/** A campaign's fixed mix over a dimension's values in one storefront, the same on every run. */
function weightsOf(campaign: CampaignModel, dimension: Dimension, country: string, count: number): number[] {
  const prng = new Prng(hashSeed(`${campaign.id}:${dimension}:${country}`));
  return Array.from({ length: count }, () => prng.int(1, 10));
}

/** One storefront's day of a campaign, split over the dimension's values (same order as dimensionValues). */
export function splitDay(
  campaign: CampaignModel,
  dimension: Dimension,
  country: string,
  day: DayMetrics,
): DayMetrics[] {
  const count = dimensionValues(dimension, country).length;
  if (count === 1) return [day];
  const weights = weightsOf(campaign, dimension, country, count);
  const parts = Object.fromEntries(
    (Object.keys(day) as (keyof DayMetrics)[]).map((key) => [key, splitByWeight(day[key], weights)]),
  ) as Record<keyof DayMetrics, number[]>;
  return weights.map((_, index) => {
    const share = {} as DayMetrics;
    for (const key of Object.keys(parts) as (keyof DayMetrics)[]) share[key] = parts[key][index] as number;
    return share;
  });
}
