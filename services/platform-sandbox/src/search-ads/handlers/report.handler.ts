import { orgOf, type SearchAdsCallContext } from '../call-context';
import {
  addMetrics,
  dayMetrics,
  isoDate,
  ZERO_METRICS,
  type CampaignModel,
  type DayMetrics,
} from '../data/search-ads-data.generator';
import { isResult, ok, type SearchAdsResult } from '../envelope';
import type { SearchAdsOrg } from '../sandbox-orgs';
import { meetsCondition, type FieldValue } from './report-condition.matcher';
import { dimensionValues, splitDay } from './report-dimension.splitter';
import { METRIC_FIELDS, metricNumber, metricsView, type MetricField } from './report-metrics.view';
import { readReportQuery, type Granularity, type ReportQuery } from './report-query.reader';
import { campaignView } from './views';

/** An hour's share of a day, deterministic (a fixed daily curve); the last hour takes the rounding rest. */
function hourShare(m: DayMetrics, hour: number): DayMetrics {
  const weights = Array.from({ length: 24 }, (_, h) => 1 + Math.sin(((h - 6) / 24) * Math.PI * 2) * 0.6);
  const total = weights.reduce((sum, w) => sum + w, 0);
  const before = weights.slice(0, hour).reduce((sum, w) => sum + w, 0);
  const share = (value: number): number =>
    Math.round((value * (before + (weights[hour] as number))) / total) - Math.round((value * before) / total);
  return {
    impressions: share(m.impressions),
    taps: share(m.taps),
    tapInstalls: share(m.tapInstalls),
    viewInstalls: share(m.viewInstalls),
    tapNewDownloads: share(m.tapNewDownloads),
    tapRedownloads: share(m.tapRedownloads),
    viewNewDownloads: share(m.viewNewDownloads),
    viewRedownloads: share(m.viewRedownloads),
    spendMinor: share(m.spendMinor),
  };
}

function bucketLabel(day: number, granularity: Granularity): string {
  const date = isoDate(day);
  if (granularity === 'MONTHLY') return date.slice(0, 7);
  if (granularity === 'WEEKLY') {
    // Weeks start on Sunday; the first bucket is labelled with its own first day in range.
    const weekday = new Date(day * 86_400_000).getUTCDay();
    return isoDate(day - weekday);
  }
  return date;
}

interface RowModel {
  campaign: CampaignModel;
  /** The campaign as the platform shows it (statuses depend on the clock). */
  view: Record<string, unknown>;
  /** The groupBy dimension's value of this row; undefined without groupBy. */
  dimensionValue: string | undefined;
  days: DayMetrics[];
  total: DayMetrics;
}

const METRICS: ReadonlySet<string> = new Set(METRIC_FIELDS);

/** A row's value of a condition or orderBy field. */
function fieldValue(row: RowModel, field: string, currency: string): FieldValue {
  if (METRICS.has(field)) return metricNumber(row.total, field as MetricField, currency);
  switch (field) {
    case 'campaignId':
      return row.campaign.id;
    case 'adamId':
      return row.campaign.adamId;
    case 'campaignName':
      return row.campaign.name;
    case 'campaignStatus':
      return row.campaign.status;
    default:
      return row.view[field] as FieldValue;
  }
}

/** The rows of one campaign: one, or one per value of the groupBy dimension, over every day of the range. */
function campaignRows(
  campaign: CampaignModel,
  view: Record<string, unknown>,
  query: ReportQuery,
  lastDay: number,
): RowModel[] {
  const byValue = new Map<string | undefined, DayMetrics[]>();
  const dayCount = query.endDay - query.startDay + 1;
  const daysOf = (value: string | undefined): DayMetrics[] => {
    let days = byValue.get(value);
    if (!days) {
      days = Array.from({ length: dayCount }, () => ZERO_METRICS);
      byValue.set(value, days);
    }
    return days;
  };
  const dimension = query.groupBy;
  for (const country of campaign.countriesOrRegions) {
    const values = dimension ? dimensionValues(dimension, country) : [undefined];
    values.forEach((value) => daysOf(value));
    for (let index = 0; index < dayCount; index++) {
      const day = query.startDay + index;
      if (day > lastDay) continue;
      const metrics = dayMetrics(campaign, country, day);
      const parts = dimension ? splitDay(campaign, dimension, country, metrics) : [metrics];
      parts.forEach((part, at) => {
        const days = daysOf(values[at]);
        days[index] = addMetrics(days[index] as DayMetrics, part);
      });
    }
  }
  return [...byValue].map(([dimensionValue, days]) => ({
    campaign,
    view,
    dimensionValue,
    days,
    total: days.reduce(addMetrics, ZERO_METRICS),
  }));
}

function compareRows(query: ReportQuery, currency: string) {
  return (a: RowModel, b: RowModel): number => {
    for (const { field, sortOrder } of query.orderBy) {
      const [x, y] = [fieldValue(a, field, currency), fieldValue(b, field, currency)];
      if (x === y) continue;
      const sign = sortOrder === 'ASCENDING' ? 1 : -1;
      return (x < y ? -1 : 1) * sign;
    }
    return 0;
  };
}

function granularityView(row: RowModel, org: SearchAdsOrg, query: ReportQuery, granularity: Granularity) {
  const entries: Record<string, unknown>[] = [];
  if (granularity === 'HOURLY') {
    row.days.forEach((m, index) => {
      for (let hour = 0; hour < 24; hour++) {
        const share = hourShare(m, hour);
        if (share.impressions === 0 && !query.noMetricRows) continue;
        const date = `${isoDate(query.startDay + index)} ${String(hour).padStart(2, '0')}`;
        entries.push({ date, ...metricsView(share, org.currency) });
      }
    });
    return entries;
  }
  const buckets = new Map<string, DayMetrics>();
  row.days.forEach((m, index) => {
    const label = bucketLabel(query.startDay + index, granularity);
    buckets.set(label, addMetrics(buckets.get(label) ?? ZERO_METRICS, m));
  });
  for (const [date, m] of buckets) {
    if (m.impressions === 0 && !query.noMetricRows) continue;
    entries.push({ date, ...metricsView(m, org.currency) });
  }
  return entries;
}

function rowView(row: RowModel, org: SearchAdsOrg, query: ReportQuery): Record<string, unknown> {
  const campaign = row.view;
  const metadata: Record<string, unknown> = {
    campaignId: row.campaign.id,
    campaignName: row.campaign.name,
    deleted: false,
    campaignStatus: row.campaign.status,
    app: { appName: row.campaign.appName, adamId: row.campaign.adamId },
    servingStatus: campaign.servingStatus,
    servingStateReasons: campaign.servingStateReasons,
    countriesOrRegions: row.campaign.countriesOrRegions,
    modificationTime: campaign.modificationTime,
    totalBudget: null,
    dailyBudget: campaign.dailyBudgetAmount,
    displayStatus: campaign.displayStatus,
    supplySources: campaign.supplySources,
    adChannelType: campaign.adChannelType,
    orgId: org.orgId,
    countryOrRegionServingStateReasons: {},
    billingEvent: campaign.billingEvent,
  };
  if (query.groupBy) metadata[query.groupBy] = row.dimensionValue;
  const view: Record<string, unknown> = { other: false };
  if (query.granularity) view.granularity = granularityView(row, org, query, query.granularity);
  if (query.rowTotals) view.total = metricsView(row.total, org.currency);
  view.metadata = metadata;
  return view;
}

/**
 * POST /reports/campaigns: one row per campaign, or per campaign and value of the groupBy dimension, kept when it
 * meets every condition (metric conditions apply to the row's totals over the range), sorted, then paged.
 */
export function campaignReport(ctx: SearchAdsCallContext): SearchAdsResult {
  const nowMs = ctx.services.now();
  const todayDay = Math.floor(nowMs / 86_400_000);
  const query = readReportQuery(ctx.body, todayDay);
  if (isResult(query)) return query;
  const org = orgOf(ctx);
  const lastDay = Math.min(query.endDay, todayDay);
  let rows = ctx.services.world
    .campaigns(org)
    .flatMap((campaign) => campaignRows(campaign, campaignView(campaign, org, nowMs), query, lastDay))
    .filter((row) => row.total.impressions > 0 || query.noMetricRows)
    .filter((row) => query.conditions.every((c) => meetsCondition(fieldValue(row, c.field, org.currency), c)));
  if (query.orderBy.length > 0) rows = [...rows].sort(compareRows(query, org.currency));
  const slice = rows.slice(query.paging.offset, query.paging.offset + query.paging.limit);
  const reportingDataResponse: Record<string, unknown> = { row: slice.map((row) => rowView(row, org, query)) };
  if (query.grandTotals) {
    const grand = rows.reduce((sum, row) => addMetrics(sum, row.total), ZERO_METRICS);
    reportingDataResponse.grandTotals = { other: false, total: metricsView(grand, org.currency) };
  }
  return ok(
    { reportingDataResponse },
    { totalResults: rows.length, startIndex: query.paging.offset, itemsPerPage: slice.length },
  );
}
