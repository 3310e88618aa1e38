import { money, type DayMetrics } from '../data/search-ads-data.generator';

/** The metric fields of a report row, in the platform's order; conditions and orderBy take these names. */
export const METRIC_FIELDS = [
  'impressions',
  'taps',
  'tapInstalls',
  'viewInstalls',
  'totalInstalls',
  'tapNewDownloads',
  'tapRedownloads',
  'viewNewDownloads',
  'viewRedownloads',
  'totalNewDownloads',
  'totalRedownloads',
  'ttr',
  'avgCPT',
  'avgCPM',
  'localSpend',
  'tapInstallCPI',
  'totalAvgCPI',
  'tapInstallRate',
  'totalInstallRate',
] as const;
export type MetricField = (typeof METRIC_FIELDS)[number];

/** The metric fields of a row, a granularity entry or the grand totals. */
export function metricsView(m: DayMetrics, currency: string): Record<MetricField, unknown> {
  const totalInstalls = m.tapInstalls + m.viewInstalls;
  const ratio = (a: number, b: number): number => (b === 0 ? 0 : Math.round((a / b) * 10_000) / 10_000);
  return {
    impressions: m.impressions,
    taps: m.taps,
    tapInstalls: m.tapInstalls,
    viewInstalls: m.viewInstalls,
    totalInstalls,
    tapNewDownloads: m.tapNewDownloads,
    tapRedownloads: m.tapRedownloads,
    viewNewDownloads: m.viewNewDownloads,
    viewRedownloads: m.viewRedownloads,
    totalNewDownloads: m.tapNewDownloads + m.viewNewDownloads,
    totalRedownloads: m.tapRedownloads + m.viewRedownloads,
    ttr: ratio(m.taps, m.impressions),
    avgCPT: money(m.taps === 0 ? 0 : Math.round(m.spendMinor / m.taps), currency),
    avgCPM: money(m.impressions === 0 ? 0 : Math.round((m.spendMinor * 1000) / m.impressions), currency),
    localSpend: money(m.spendMinor, currency),
    tapInstallCPI: money(m.tapInstalls === 0 ? 0 : Math.round(m.spendMinor / m.tapInstalls), currency),
    totalAvgCPI: money(totalInstalls === 0 ? 0 : Math.round(m.spendMinor / totalInstalls), currency),
    tapInstallRate: ratio(m.tapInstalls, m.taps),
    totalInstallRate: ratio(totalInstalls, m.taps),
  };
}

/** A metric as a number: counts and rates as they are, money by its amount. */
export function metricNumber(m: DayMetrics, field: MetricField, currency: string): number {
  const value = metricsView(m, currency)[field];
  return typeof value === 'number' ? value : Number((value as { amount: string }).amount);
}
