import { dayStart, hourStart } from '../data/calendar';
import { cumulativeShares, hourShares, splitCounters } from '../data/delivery.generator';
import { hashSeed, Prng } from '../data/prng';
import { formatMetric, type MetricCatalogue } from './metric-catalogue';

/** One entity on one day: its identifying dimension values and its additive counters. */
export interface Fact {
  dims: Readonly<Record<string, string>>;
  day: number;
  counters: readonly number[];
  /** Seeds the hour and audience splits of this fact. */
  seed: number;
}

/** An audience breakdown (AUDIENCE reports): bucket values and their shares for one fact. */
export interface AudienceSplit {
  name: string;
  buckets(fact: Fact): { values: readonly string[]; cumulative: readonly number[] };
}

export interface AggregatedRow {
  /** Values in the order of the requested dimensions. */
  values: string[];
  counters: number[];
}

interface Leaf {
  extra: Record<string, string>;
  counters: readonly number[];
}

/**
 * Groups facts by the requested dimensions, splitting them by hour or audience first when asked. Because
 * splits hand out integer shares that add up exactly, a campaign's hours sum to its day, its days to its
 * range. Rows with nothing in them are dropped, as the platform does.
 */
export function aggregateFacts(
  facts: Iterable<Fact>,
  dimensions: readonly string[],
  splits: readonly AudienceSplit[],
  counterCount: number,
): AggregatedRow[] {
  const byHour = dimensions.includes('stat_time_hour');
  const groups = new Map<string, AggregatedRow>();
  // Time labels are formatted once per day/hour, not once per fact: this loop runs for every (entity, day).
  const labels = new Map<number, string>();
  const label = (slot: number, make: () => string): string => {
    let text = labels.get(slot);
    if (text === undefined) {
      text = make();
      labels.set(slot, text);
    }
    return text;
  };

  const add = (fact: Fact, extra: Record<string, string> | undefined, counters: readonly number[]): void => {
    if (counters.every((value) => value === 0)) return;
    const values = new Array<string>(dimensions.length);
    let key = '';
    for (let i = 0; i < dimensions.length; i++) {
      const dimension = dimensions[i] as string;
      const value =
        extra?.[dimension] ??
        fact.dims[dimension] ??
        (dimension === 'stat_time_day' ? label(fact.day * 25, () => dayStart(fact.day)) : '');
      values[i] = value;
      key += `${value}|`;
    }
    let row = groups.get(key);
    if (!row) {
      row = { values, counters: new Array<number>(counterCount).fill(0) };
      groups.set(key, row);
    }
    const sums = row.counters;
    for (let i = 0; i < counterCount; i++) sums[i] = (sums[i] as number) + (counters[i] ?? 0);
  };

  for (const fact of facts) {
    if (!byHour && splits.length === 0) {
      add(fact, undefined, fact.counters);
      continue;
    }
    let leaves: Leaf[] = [{ extra: {}, counters: fact.counters }];
    if (byHour) {
      leaves = splitCounters(fact.counters, hourShares(fact.seed)).map((counters, hour) => ({
        extra: { stat_time_hour: label(fact.day * 25 + hour + 1, () => hourStart(fact.day, hour)) },
        counters,
      }));
    }
    for (const split of splits) {
      const { values, cumulative } = split.buckets(fact);
      leaves = leaves.flatMap((leaf) =>
        splitCounters(leaf.counters, cumulative).map((counters, index) => ({
          extra: { ...leaf.extra, [split.name]: values[index] as string },
          counters,
        })),
      );
    }
    for (const leaf of leaves) add(fact, leaf.extra, leaf.counters);
  }
  return [...groups.values()];
}

export interface SortSpec {
  /** A metric of the catalogue, or undefined for the default order (dimension values ascending). */
  field?: string;
  type: 'ASC' | 'DESC';
}

const DIGITS = /^\d+$/;

/** Ids compare as numbers (shorter first), everything else as text. */
function compareValues(x: string, y: string): number {
  if (x === y) return 0;
  if (x.length !== y.length && DIGITS.test(x) && DIGITS.test(y)) return x.length - y.length;
  return x < y ? -1 : 1;
}

/** Stable, total order so every page of a report is the same on every call. */
export function sortRows(rows: AggregatedRow[], sort: SortSpec, metrics: MetricCatalogue): AggregatedRow[] {
  const byValues = (a: AggregatedRow, b: AggregatedRow): number => {
    for (let i = 0; i < a.values.length; i++) {
      const order = compareValues(a.values[i] as string, b.values[i] as string);
      if (order !== 0) return order;
    }
    return 0;
  };
  const def = sort.field === undefined ? undefined : metrics.get(sort.field);
  if (!def) return rows.sort(byValues);
  const direction = sort.type === 'ASC' ? 1 : -1;
  const keyed = rows.map((row) => ({ row, key: def.value(row.counters) }));
  keyed.sort((a, b) => (a.key !== b.key ? (a.key - b.key) * direction : byValues(a.row, b.row)));
  return keyed.map((entry) => entry.row);
}

export interface PageInfo {
  page: number;
  page_size: number;
  total_number: number;
  total_page: number;
}

/** One page of rows in the wire shape: {dimensions, metrics}, every value a string (spec 2.4). */
export function pageOfRows(
  rows: readonly AggregatedRow[],
  dimensions: readonly string[],
  metricNames: readonly string[],
  catalogue: MetricCatalogue,
  page: number,
  pageSize: number,
): { list: object[]; page_info: PageInfo } {
  const slice = rows.slice((page - 1) * pageSize, page * pageSize);
  const list = slice.map((row) => {
    const dims: Record<string, string> = {};
    dimensions.forEach((dimension, index) => (dims[dimension] = row.values[index] as string));
    const metrics: Record<string, string> = {};
    for (const name of metricNames) {
      const def = catalogue.get(name);
      if (def) metrics[name] = formatMetric(def, row.counters);
    }
    return { dimensions: dims, metrics };
  });
  return { list, page_info: pageInfo(rows.length, page, pageSize) };
}

export function pageInfo(total: number, page: number, pageSize: number): PageInfo {
  return { page, page_size: pageSize, total_number: total, total_page: Math.ceil(total / pageSize) };
}

/** Small LRU of finished (aggregated and sorted) reports, keyed by the query without its page. */
export class ReportCache {
  private readonly entries = new Map<string, AggregatedRow[]>();

  constructor(private readonly capacity = 64) {}

  getOrBuild(key: string, build: () => AggregatedRow[]): AggregatedRow[] {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const rows = build();
    this.entries.set(key, rows);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return rows;
  }
}

function audienceSplit(
  name: string,
  values: readonly string[],
  weights: (fact: Fact) => readonly number[],
): AudienceSplit {
  const salt = hashSeed(name);
  return {
    name,
    buckets(fact) {
      const prng = new Prng(fact.seed ^ salt);
      return { values, cumulative: cumulativeShares(weights(fact).map((weight) => weight * prng.range(0.85, 1.15))) };
    },
  };
}

const NEIGHBOURS: Record<string, readonly string[]> = {
  US: ['US', 'CA', 'MX'],
  GB: ['GB', 'IE', 'US'],
  DE: ['DE', 'AT', 'CH'],
  FR: ['FR', 'BE', 'CH'],
  JP: ['JP', 'KR', 'TW'],
};

/** Audience dimensions of report_type AUDIENCE. `country` is the advertiser's country of each fact. */
export function audienceSplits(country: (fact: Fact) => string): Record<string, AudienceSplit> {
  return {
    gender: audienceSplit('gender', ['FEMALE', 'MALE', 'NONE'], () => [0.52, 0.44, 0.04]),
    age: audienceSplit('age', ['AGE_13_17', 'AGE_18_24', 'AGE_25_34', 'AGE_35_44', 'AGE_45_54', 'AGE_55_100'], () => [
      0.03, 0.3, 0.33, 0.18, 0.1, 0.06,
    ]),
    platform: audienceSplit('platform', ['ANDROID', 'IPHONE', 'IPAD'], () => [0.5, 0.45, 0.05]),
    country_code: {
      name: 'country_code',
      buckets(fact) {
        const home = country(fact);
        const values = NEIGHBOURS[home] ?? [home];
        const prng = new Prng(fact.seed ^ hashSeed('country_code'));
        const weights = values.map((_, index) => (index === 0 ? 0.85 : 0.075) * prng.range(0.85, 1.15));
        return { values, cumulative: cumulativeShares(weights) };
      },
    },
  };
}
