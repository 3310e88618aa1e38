import { dataOf, failed, type MarketCallContext } from '../call-context';
import { campaignDay, type AdMetrics } from '../data/market-data.generator';
import { ok, type MarketResult } from '../envelope';
import { formatDate } from '../params.reader';

const DAY_S = 86_400;
/** The platform's "one month" window, counted with both ends. */
const MAX_ADS_DAYS = 31;

function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** start_date and end_date in DD-MM-YYYY, in order, at most one month; undefined after a failure. */
function dateRange(ctx: MarketCallContext): number[] | undefined {
  const { params } = ctx;
  const start = params.date('start_date', 'DD-MM-YYYY');
  const end = params.date('end_date', 'DD-MM-YYYY');
  if (params.error || start === undefined || end === undefined) return undefined;
  if (start > end) {
    params.fail('start_date must not be later than end_date.');
    return undefined;
  }
  if (end - start + 1 > MAX_ADS_DAYS) {
    params.fail('The date range should be within one month.');
    return undefined;
  }
  return Array.from({ length: end - start + 1 }, (_unused, index) => start + index);
}

function sum(rows: AdMetrics[]): AdMetrics {
  const total: AdMetrics = {
    impression: 0,
    clicks: 0,
    expense: 0,
    direct_order: 0,
    direct_gmv: 0,
    broad_order: 0,
    broad_gmv: 0,
  };
  for (const row of rows) {
    for (const key of Object.keys(total) as (keyof AdMetrics)[]) total[key] += row[key];
  }
  return total;
}

function metricsRecord(day: number, metrics: AdMetrics): Record<string, unknown> {
  return {
    date: formatDate(day, 'DD-MM-YYYY'),
    impression: metrics.impression,
    clicks: metrics.clicks,
    ctr: metrics.impression === 0 ? 0 : round(metrics.clicks / metrics.impression, 4),
    direct_order: metrics.direct_order,
    direct_gmv: round(metrics.direct_gmv),
    broad_order: metrics.broad_order,
    broad_gmv: round(metrics.broad_gmv),
    expense: round(metrics.expense),
    cost_per_conversion: metrics.broad_order === 0 ? 0 : round(metrics.expense / metrics.broad_order),
    direct_roas: metrics.expense === 0 ? 0 : round(metrics.direct_gmv / metrics.expense),
    broad_roas: metrics.expense === 0 ? 0 : round(metrics.broad_gmv / metrics.expense),
  };
}

export function getTotalBalance(ctx: MarketCallContext): MarketResult {
  return ok({
    data_timestamp: Math.floor(ctx.services.now() / 1000),
    total_balance: dataOf(ctx).total_balance,
  });
}

/** The platform's quirk: ads performance answers `response` as an array. */
export function getAllCpcAdsDailyPerformance(ctx: MarketCallContext): MarketResult {
  const days = dateRange(ctx);
  if (ctx.params.error || !days) return failed(ctx);
  const data = dataOf(ctx);
  const anchorDay = data.anchor / DAY_S;
  return ok(
    days.map((day) => metricsRecord(day, sum(data.campaigns.map((campaign) => campaignDay(campaign, day, anchorDay))))),
  );
}

export function getProductLevelCampaignIdList(ctx: MarketCallContext): MarketResult {
  const { params } = ctx;
  // An empty ad_type counts as absent (all), as every empty parameter does.
  const adType = params.enumOf('ad_type', ['all', 'auto', 'manual'] as const) ?? 'all';
  const offset = params.int('offset', { min: 0, max: 1_000_000 });
  const limit = params.int('limit', { min: 1, max: 5000, fallback: 5000 });
  if (params.error) return params.error;
  const matching = dataOf(ctx).campaigns.filter((campaign) => adType === 'all' || campaign.ad_type === adType);
  const page = matching.slice(offset, offset + limit);
  return ok({
    shop_id: ctx.shop.shop_id,
    region: ctx.shop.region,
    has_next_page: offset + page.length < matching.length,
    campaign_list: page.map((campaign) => ({ ad_type: campaign.ad_type, campaign_id: campaign.campaign_id })),
  });
}

export function getProductCampaignDailyPerformance(ctx: MarketCallContext): MarketResult {
  const days = dateRange(ctx);
  // The reference gives no form for campaign_id_list: comma-joined and repeated are both accepted.
  const ids = ctx.params.idList('campaign_id_list', 'either', 100);
  if (ctx.params.error || !days) return failed(ctx);
  const data = dataOf(ctx);
  const byId = new Map(data.campaigns.map((campaign) => [campaign.campaign_id, campaign]));
  const unknown = ids.filter((id) => !byId.has(id));
  if (unknown.length > 0) {
    ctx.params.fail(`campaign_id_list holds campaigns not of this shop: ${unknown.join(',')}.`);
    return failed(ctx);
  }
  const anchorDay = data.anchor / DAY_S;
  return ok([
    {
      shop_id: ctx.shop.shop_id,
      region: ctx.shop.region,
      campaign_list: ids.map((id) => {
        const campaign = byId.get(id);
        if (!campaign) throw new Error('unreachable: campaign ids were checked');
        return {
          campaign_id: campaign.campaign_id,
          ad_type: campaign.ad_type,
          campaign_placement: 'all',
          ad_name: campaign.ad_name,
          metrics_list: days.map((day) => metricsRecord(day, campaignDay(campaign, day, anchorDay))),
        };
      }),
    },
  ]);
}
