import { findAdvertiser } from '../sandbox-accounts';
import { checkAdvertiser, type CallContext } from '../call-context';
import type { AdModel } from '../data/advertiser-tree.generator';
import { AD_COUNTERS, adDayCounters } from '../data/delivery.generator';
import { hashSeed } from '../data/prng';
import type { AdvertiserWorld } from '../data/world';
import { apiError, ok, paramError, VideoAdsCode, type ApiResult } from '../envelope';
import type { ParamReader } from '../params.reader';
import { AD_METRICS } from '../report/metric-catalogue';
import { aggregateFacts, audienceSplits, pageOfRows, sortRows, type Fact } from '../report/report.engine';
import { checkDateRange, checkDimensions } from './report-rules';

const REPORT_TYPES = ['BASIC', 'AUDIENCE', 'PLAYABLE_MATERIAL', 'CATALOG', 'BC', 'TT_SHOP'] as const;
type ReportType = (typeof REPORT_TYPES)[number];
const DATA_LEVELS = ['AUCTION_ADVERTISER', 'AUCTION_CAMPAIGN', 'AUCTION_ADGROUP', 'AUCTION_AD'] as const;
type DataLevel = (typeof DATA_LEVELS)[number];

const LEVEL_ID: Record<DataLevel, string> = {
  AUCTION_ADVERTISER: 'advertiser_id',
  AUCTION_CAMPAIGN: 'campaign_id',
  AUCTION_ADGROUP: 'adgroup_id',
  AUCTION_AD: 'ad_id',
};
const LEVEL_DEPTH: Record<DataLevel, number> = {
  AUCTION_ADVERTISER: 0,
  AUCTION_CAMPAIGN: 1,
  AUCTION_ADGROUP: 2,
  AUCTION_AD: 3,
};
/** Id filters of the report, and the shallowest data_level each makes sense at. */
const ID_FILTERS: Record<string, { key: 'campaign_id' | 'adgroup_id' | 'ad_id'; depth: number }> = {
  campaign_ids: { key: 'campaign_id', depth: 1 },
  adgroup_ids: { key: 'adgroup_id', depth: 2 },
  ad_ids: { key: 'ad_id', depth: 3 },
};
const TIME_DIMENSIONS = ['stat_time_day', 'stat_time_hour'];
const AUDIENCE_DIMENSIONS = ['gender', 'age', 'country_code', 'platform'];
const DEFAULT_METRICS = ['spend', 'impressions'];

interface ReportQuery {
  type: ReportType;
  advertiserId: string;
  bcId: string;
  level: DataLevel;
  dimensions: string[];
  metrics: string[];
  startDay: number;
  endDay: number;
  idFilters: Partial<Record<'campaign_id' | 'adgroup_id' | 'ad_id', Set<string>>>;
  orderField: string | undefined;
  orderType: 'ASC' | 'DESC';
  page: number;
  pageSize: number;
}

/** Report `filtering`: a JSON array of {field_name, filter_type, filter_value}; the sandbox knows the id filters. */
function readReportFilters(params: ParamReader, level: DataLevel): ReportQuery['idFilters'] {
  const filters: ReportQuery['idFilters'] = {};
  const entries = params.optionalArray('filtering');
  if (!entries) return filters;
  entries.forEach((entry, index) => {
    const at = `filtering.${index}`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      params.fail(`${at}: Not a valid mapping type.`);
      return;
    }
    const { field_name: field, filter_type: type, filter_value: value } = entry as Record<string, unknown>;
    const spec = typeof field === 'string' ? ID_FILTERS[field] : undefined;
    if (!spec) {
      params.fail(`${at}.field_name: Must be one of: ${Object.keys(ID_FILTERS).join(', ')}.`);
      return;
    }
    if (spec.depth > LEVEL_DEPTH[level]) {
      params.fail(`${at}.field_name: ${String(field)} is not supported when data_level is ${level}.`);
      return;
    }
    if (type !== 'IN') {
      params.fail(`${at}.filter_type: Must be one of: IN.`);
      return;
    }
    let ids: unknown = value;
    if (typeof value === 'string') {
      try {
        ids = JSON.parse(value);
      } catch {
        ids = undefined;
      }
    }
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string') || ids.length > 100) {
      params.fail(`${at}.filter_value: Must be a JSON array of at most 100 id strings.`);
      return;
    }
    filters[spec.key] = new Set(ids as string[]);
  });
  return filters;
}

function readQuery(params: ParamReader): ReportQuery | ApiResult {
  const type = params.requiredEnum('report_type', REPORT_TYPES) ?? 'BASIC';
  const isBc = type === 'BC';
  const advertiserId = isBc ? (params.optionalString('advertiser_id') ?? '') : params.id('advertiser_id');
  const bcId = isBc ? params.id('bc_id') : '';
  const level =
    type === 'BASIC'
      ? (params.requiredEnum('data_level', DATA_LEVELS) ?? 'AUCTION_ADVERTISER')
      : (params.enumOf('data_level', DATA_LEVELS) ?? 'AUCTION_ADVERTISER');
  const dimensions = params.stringArray('dimensions', { max: 4 });
  const metrics = params.optionalStringArray('metrics', { min: 1, max: 100 }) ?? DEFAULT_METRICS;
  const startDay = params.date('start_date');
  const endDay = params.date('end_date');
  const idFilters = readReportFilters(params, level);
  const orderField = params.optionalString('order_field');
  const orderType = params.enumOf('order_type', ['ASC', 'DESC'] as const, 'DESC') ?? 'DESC';
  const { page, pageSize } = params.page();
  if (params.error) return params.error;

  const structured = type === 'BASIC' || type === 'AUDIENCE' || type === 'BC';
  if (structured) {
    const allowed = isBc
      ? ['advertiser_id', ...TIME_DIMENSIONS]
      : [LEVEL_ID[level], ...TIME_DIMENSIONS, ...(type === 'AUDIENCE' ? AUDIENCE_DIMENSIONS : [])];
    const context = isBc ? `report_type ${type}` : `report_type ${type} and data_level ${level}`;
    const problem = checkDimensions(dimensions, allowed, context);
    if (problem) return problem;
    if (type === 'AUDIENCE' && !dimensions.some((d) => AUDIENCE_DIMENSIONS.includes(d))) {
      return paramError(`dimensions: report_type AUDIENCE needs one of: ${AUDIENCE_DIMENSIONS.join(', ')}.`);
    }
    const unknown = metrics.filter((metric) => !AD_METRICS.has(metric));
    if (unknown.length > 0) return paramError(`metrics: Invalid metric(s): ${unknown.join(', ')}.`);
    if (orderField !== undefined && !AD_METRICS.has(orderField)) {
      return paramError(`order_field: Invalid order field: ${orderField}.`);
    }
  }
  const span = checkDateRange(startDay as number, endDay as number, dimensions);
  if (span) return span;
  return {
    type,
    advertiserId,
    bcId,
    level,
    dimensions,
    metrics,
    startDay: startDay as number,
    endDay: endDay as number,
    idFilters,
    orderField,
    orderType,
    page,
    pageSize,
  };
}

function* adFacts(worlds: readonly AdvertiserWorld[], query: ReportQuery): Generator<Fact> {
  const { campaign_id: campaigns, adgroup_id: adgroups, ad_id: ads } = query.idFilters;
  for (const world of worlds) {
    for (const ad of world.ads) {
      if (!ad.delivering) continue;
      if (campaigns && !campaigns.has(ad.record.campaign_id)) continue;
      if (adgroups && !adgroups.has(ad.record.adgroup_id)) continue;
      if (ads && !ads.has(ad.record.ad_id)) continue;
      const dims = factDims(ad);
      const adSeed = hashSeed(ad.record.ad_id);
      for (let day = query.startDay; day <= query.endDay; day++) {
        const counters = adDayCounters(ad, day, world.currencyFactor);
        if (counters) yield { dims, day, counters, seed: adSeed ^ Math.imul(day, 0x85ebca6b) };
      }
    }
  }
}

function factDims(ad: AdModel): Record<string, string> {
  return {
    advertiser_id: ad.record.advertiser_id as string,
    campaign_id: ad.record.campaign_id,
    adgroup_id: ad.record.adgroup_id,
    ad_id: ad.record.ad_id,
  };
}

/**
 * GET /report/integrated/get/. BASIC and AUDIENCE aggregate the generated (ad, day) facts of one advertiser;
 * BC does so over the granted advertisers of a business center. PLAYABLE_MATERIAL, CATALOG and TT_SHOP are
 * accepted but the sandbox accounts have no such assets, so they answer an empty page.
 */
export function integratedReport(ctx: CallContext): ApiResult {
  const query = readQuery(ctx.params);
  if (!('startDay' in query)) return query;

  let worlds: AdvertiserWorld[];
  if (query.type === 'BC') {
    if (!ctx.grant?.bc_ids.includes(query.bcId)) {
      return apiError(VideoAdsCode.NO_PERMISSION, `No permission to operate business center: ${query.bcId}`);
    }
    const members = (ctx.grant?.advertiser_ids ?? []).filter((id) => findAdvertiser(id)?.owner_bc_id === query.bcId);
    worlds = members.flatMap((id) => ctx.services.world.advertiser(id) ?? []);
  } else {
    const denied = checkAdvertiser(ctx, query.advertiserId);
    if (denied) return denied;
    const world = ctx.services.world.advertiser(query.advertiserId);
    worlds = query.type === 'BASIC' || query.type === 'AUDIENCE' ? (world ? [world] : []) : [];
  }

  const country = findAdvertiser(query.advertiserId)?.country ?? 'US';
  const splitters = audienceSplits(() => country);
  const splits = query.dimensions.flatMap((dimension) => splitters[dimension] ?? []);
  const key = JSON.stringify([
    query.type,
    query.advertiserId,
    query.bcId,
    worlds.map((world) => world.advertiser.advertiser_id),
    query.level,
    query.dimensions,
    query.startDay,
    query.endDay,
    Object.entries(query.idFilters).map(([name, ids]) => [name, [...ids].sort()]),
    query.orderField,
    query.orderType,
  ]);
  const rows = ctx.services.reports.getOrBuild(key, () =>
    sortRows(
      aggregateFacts(adFacts(worlds, query), query.dimensions, splits, AD_COUNTERS.length),
      { field: query.orderField, type: query.orderType },
      AD_METRICS,
    ),
  );
  return ok(pageOfRows(rows, query.dimensions, query.metrics, AD_METRICS, query.page, query.pageSize));
}
