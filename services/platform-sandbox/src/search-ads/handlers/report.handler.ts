import { orgOf, type SearchAdsCallContext } from '../call-context';
import {
  addMetrics,
  dayMetrics,
  isoDate,
  money,
  ZERO_METRICS,
  type CampaignModel,
  type DayMetrics,
} from '../data/search-ads-data.generator';
import { invalidValue, isResult, ok, type SearchAdsResult } from '../envelope';
import { parseIsoDay, readPaging, type Paging } from '../params.reader';
import type { SearchAdsOrg } from '../sandbox-orgs';
import { campaignView } from './views';

type Granularity = 'HOURLY' | 'DAILY' | 'WEEKLY' | 'MONTHLY';
const GRANULARITIES: readonly Granularity[] = ['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY'];
/** Longest date range per granularity (ours, close to the platform's documented limits); none: 366 days. */
const MAX_DAYS: Record<Granularity | 'NONE', number> = { HOURLY: 7, DAILY: 90, WEEKLY: 365, MONTHLY: 730, NONE: 366 };
const METRIC_FIELDS = [
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
const CONDITION_FIELDS = ['campaignId', 'campaignName', 'campaignStatus', 'countriesOrRegions', 'deleted'] as const;
const ORDER_FIELDS = new Set<string>([...METRIC_FIELDS, 'campaignId', 'campaignName']);
const OPERATORS = ['EQUALS', 'IN', 'STARTSWITH', 'CONTAINS', 'CONTAINS_ANY', 'CONTAINS_ALL'] as const;
/** groupBy dimensions the platform knows; the sandbox splits rows by countryOrRegion only. */
const GROUP_BY = ['countryOrRegion'] as const;

interface Condition {
  field: (typeof CONDITION_FIELDS)[number];
  operator: (typeof OPERATORS)[number];
  values: string[];
}

interface ReportQuery {
  startDay: number;
  endDay: number;
  granularity: Granularity | undefined;
  conditions: Condition[];
  orderBy: { field: string; sortOrder: 'ASCENDING' | 'DESCENDING' }[];
  paging: Paging;
  byCountry: boolean;
  rowTotals: boolean;
  grandTotals: boolean;
  noMetricRows: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function readFlag(body: Record<string, unknown>, name: string): boolean | SearchAdsResult {
  const value = body[name];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') return invalidValue(name, `${name} must be true or false`);
  return value;
}

/** The report query, validated as the platform does: dates, range, selector.pagination, fields and operators. */
function readQuery(body: unknown, todayDay: number): ReportQuery | SearchAdsResult {
  if (!isObject(body)) return invalidValue('', 'The report query must be a JSON object');
  const startDay = parseIsoDay(body.startTime);
  if (startDay === undefined) return invalidValue('startTime', 'startTime must be a date as YYYY-MM-DD');
  const endDay = parseIsoDay(body.endTime);
  if (endDay === undefined) return invalidValue('endTime', 'endTime must be a date as YYYY-MM-DD');
  if (endDay < startDay) return invalidValue('endTime', 'endTime must not be before startTime');
  if (startDay > todayDay) return invalidValue('startTime', 'startTime must not be in the future');
  let granularity: Granularity | undefined;
  if (body.granularity !== undefined) {
    if (!GRANULARITIES.includes(body.granularity as Granularity)) {
      return invalidValue('granularity', `granularity must be one of ${GRANULARITIES.join(', ')}`);
    }
    granularity = body.granularity as Granularity;
  }
  if (endDay - startDay + 1 > MAX_DAYS[granularity ?? 'NONE']) {
    return invalidValue('endTime', `the date range is limited to ${MAX_DAYS[granularity ?? 'NONE']} days`);
  }
  if (body.timeZone !== undefined && body.timeZone !== 'UTC' && body.timeZone !== 'ORTZ') {
    return invalidValue('timeZone', 'timeZone must be UTC or ORTZ');
  }
  const flags: Record<string, boolean> = {};
  for (const name of ['returnRowTotals', 'returnGrandTotals', 'returnRecordsWithNoMetrics']) {
    const flag = readFlag(body, name);
    if (isResult(flag)) return flag;
    flags[name] = flag;
  }
  let byCountry = false;
  if (body.groupBy !== undefined) {
    if (!Array.isArray(body.groupBy) || body.groupBy.some((item) => !GROUP_BY.includes(item as 'countryOrRegion'))) {
      return invalidValue('groupBy', `groupBy supports ${GROUP_BY.join(', ')}`);
    }
    byCountry = body.groupBy.length > 0;
  }
  const selector = body.selector;
  if (!isObject(selector)) return invalidValue('selector', 'selector is required');
  if (!isObject(selector.pagination)) return invalidValue('selector.pagination', 'selector.pagination is required');
  const paging = readPaging(selector.pagination, 'selector.pagination.', { offset: 0, limit: 1000 });
  if (isResult(paging)) return paging;

  const conditions: Condition[] = [];
  if (selector.conditions !== undefined) {
    if (!Array.isArray(selector.conditions)) return invalidValue('selector.conditions', 'conditions must be a list');
    for (const [index, condition] of selector.conditions.entries()) {
      const at = `selector.conditions[${index}]`;
      if (!isObject(condition)) return invalidValue(at, 'a condition must be an object');
      if (!CONDITION_FIELDS.includes(condition.field as Condition['field'])) {
        return invalidValue(`${at}.field`, `unknown condition field ${String(condition.field)}`);
      }
      if (!OPERATORS.includes(condition.operator as Condition['operator'])) {
        return invalidValue(`${at}.operator`, `unknown operator ${String(condition.operator)}`);
      }
      const values = condition.values;
      if (
        !Array.isArray(values) ||
        values.length === 0 ||
        values.some((v) => typeof v !== 'string' && typeof v !== 'number')
      ) {
        return invalidValue(`${at}.values`, 'values must be a non-empty list');
      }
      conditions.push({
        field: condition.field as Condition['field'],
        operator: condition.operator as Condition['operator'],
        values: values.map(String),
      });
    }
  }
  const orderBy: ReportQuery['orderBy'] = [];
  if (selector.orderBy !== undefined) {
    if (!Array.isArray(selector.orderBy)) return invalidValue('selector.orderBy', 'orderBy must be a list');
    for (const [index, order] of selector.orderBy.entries()) {
      const at = `selector.orderBy[${index}]`;
      if (!isObject(order) || typeof order.field !== 'string' || !ORDER_FIELDS.has(order.field)) {
        return invalidValue(`${at}.field`, `unknown orderBy field ${isObject(order) ? String(order.field) : ''}`);
      }
      const sortOrder = order.sortOrder ?? 'ASCENDING';
      if (sortOrder !== 'ASCENDING' && sortOrder !== 'DESCENDING') {
        return invalidValue(`${at}.sortOrder`, 'sortOrder must be ASCENDING or DESCENDING');
      }
      orderBy.push({ field: order.field, sortOrder });
    }
  }
  return {
    startDay,
    endDay,
    granularity,
    conditions,
    orderBy,
    paging,
    byCountry,
    rowTotals: flags.returnRowTotals as boolean,
    grandTotals: flags.returnGrandTotals as boolean,
    noMetricRows: flags.returnRecordsWithNoMetrics as boolean,
  };
}

function matches(campaign: CampaignModel, condition: Condition): boolean {
  const values = condition.values;
  switch (condition.field) {
    case 'campaignId':
      return values.includes(String(campaign.id));
    case 'campaignStatus':
      return values.includes(campaign.status);
    case 'deleted':
      return values.includes('false');
    case 'countriesOrRegions':
      return condition.operator === 'CONTAINS_ALL'
        ? values.every((value) => campaign.countriesOrRegions.includes(value))
        : values.some((value) => campaign.countriesOrRegions.includes(value));
    case 'campaignName':
      if (condition.operator === 'STARTSWITH') return values.some((value) => campaign.name.startsWith(value));
      if (condition.operator === 'CONTAINS') return values.some((value) => campaign.name.includes(value));
      return values.includes(campaign.name);
  }
}

/** The metric fields of a row, a granularity entry or the grand totals. */
function metricsView(m: DayMetrics, currency: string): Record<string, unknown> {
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
  country: string | undefined;
  days: DayMetrics[];
  total: DayMetrics;
}

function orderValue(row: RowModel, field: string, currency: string): number | string {
  if (field === 'campaignId') return row.campaign.id;
  if (field === 'campaignName') return row.campaign.name;
  const value = metricsView(row.total, currency)[field];
  if (typeof value === 'number') return value;
  return Number((value as { amount: string }).amount);
}

function rowView(row: RowModel, org: SearchAdsOrg, query: ReportQuery, nowMs: number): Record<string, unknown> {
  const campaign = campaignView(row.campaign, org, nowMs);
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
  if (row.country !== undefined) metadata.countryOrRegion = row.country;
  const view: Record<string, unknown> = { other: false };
  const granularity = query.granularity;
  if (granularity) {
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
    } else {
      const buckets = new Map<string, DayMetrics>();
      row.days.forEach((m, index) => {
        const label = bucketLabel(query.startDay + index, granularity);
        buckets.set(label, addMetrics(buckets.get(label) ?? ZERO_METRICS, m));
      });
      for (const [date, m] of buckets) {
        if (m.impressions === 0 && !query.noMetricRows) continue;
        entries.push({ date, ...metricsView(m, org.currency) });
      }
    }
    view.granularity = entries;
  }
  if (query.rowTotals) view.total = metricsView(row.total, org.currency);
  view.metadata = metadata;
  return view;
}

/** POST /reports/campaigns: one row per campaign (per storefront with groupBy countryOrRegion). */
export function campaignReport(ctx: SearchAdsCallContext): SearchAdsResult {
  const nowMs = ctx.services.now();
  const todayDay = Math.floor(nowMs / 86_400_000);
  const query = readQuery(ctx.body, todayDay);
  if (isResult(query)) return query;
  const org = orgOf(ctx);
  const lastDay = Math.min(query.endDay, todayDay);
  const campaigns = ctx.services.world
    .campaigns(org)
    .filter((campaign) => query.conditions.every((condition) => matches(campaign, condition)));
  let rows: RowModel[] = [];
  for (const campaign of campaigns) {
    const countries: (string | undefined)[] = query.byCountry ? campaign.countriesOrRegions : [undefined];
    for (const country of countries) {
      const days: DayMetrics[] = [];
      for (let day = query.startDay; day <= query.endDay; day++) {
        if (day > lastDay) {
          days.push(ZERO_METRICS);
          continue;
        }
        const inCountries = country === undefined ? campaign.countriesOrRegions : [country];
        days.push(inCountries.reduce((sum, c) => addMetrics(sum, dayMetrics(campaign, c, day)), ZERO_METRICS));
      }
      const total = days.reduce(addMetrics, ZERO_METRICS);
      if (total.impressions === 0 && !query.noMetricRows) continue;
      rows.push({ campaign, country, days, total });
    }
  }
  if (query.orderBy.length > 0) {
    rows = [...rows].sort((a, b) => {
      for (const { field, sortOrder } of query.orderBy) {
        const [x, y] = [orderValue(a, field, org.currency), orderValue(b, field, org.currency)];
        if (x === y) continue;
        const sign = sortOrder === 'ASCENDING' ? 1 : -1;
        return (x < y ? -1 : 1) * sign;
      }
      return 0;
    });
  }
  const slice = rows.slice(query.paging.offset, query.paging.offset + query.paging.limit);
  const reportingDataResponse: Record<string, unknown> = {
    row: slice.map((row) => rowView(row, org, query, nowMs)),
  };
  if (query.grandTotals) {
    const grand = rows.reduce((sum, row) => addMetrics(sum, row.total), ZERO_METRICS);
    reportingDataResponse.grandTotals = { other: false, total: metricsView(grand, org.currency) };
  }
  return ok(
    { reportingDataResponse },
    { totalResults: rows.length, startIndex: query.paging.offset, itemsPerPage: slice.length },
  );
}
