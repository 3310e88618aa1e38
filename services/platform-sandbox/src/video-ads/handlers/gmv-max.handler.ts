import { checkAdvertiser, type CallContext } from '../call-context';
import { ok, paramError, type ApiResult } from '../envelope';
import { GMV_COUNTERS, gmvDayFacts, type PromotionType, type StoreModel } from '../gmv-max/gmv-max.generator';
import { FilterReader } from '../params.reader';
import { GMV_METRICS } from '../report/metric-catalogue';
import { aggregateFacts, pageOfRows, sortRows, type Fact } from '../report/report.engine';
import { checkDateRange, checkDimensions } from './report-rules';

const GMV_DIMENSIONS = [
  'advertiser_id',
  'campaign_id',
  'stat_time_day',
  'stat_time_hour',
  'item_group_id',
  'item_id',
  'room_id',
  'duration',
];
const PRODUCT_DIMENSIONS = ['item_group_id', 'item_id'];
const LIVE_DIMENSIONS = ['room_id', 'duration'];

/** GET /gmv_max/store/list/?advertiser_id: the advertiser's TikTok Shop stores (no paging on this path). */
export function gmvStoreList(ctx: CallContext): ApiResult {
  const advertiserId = ctx.params.id('advertiser_id');
  if (ctx.params.error) return ctx.params.error;
  const denied = checkAdvertiser(ctx, advertiserId);
  if (denied) return denied;
  const stores = ctx.services.world.advertiser(advertiserId)?.stores ?? [];
  return ok({ store_list: stores.map((store) => store.record) });
}

function* storeFacts(
  advertiserId: string,
  store: StoreModel,
  startDay: number,
  endDay: number,
  currencyFactor: number,
  only: { promotion?: PromotionType; campaigns?: Set<string>; promotions?: Set<string> },
): Generator<Fact> {
  for (let day = startDay; day <= endDay; day++) {
    for (const fact of gmvDayFacts(store, day, currencyFactor)) {
      const campaign = fact.campaign;
      if (only.promotion && campaign.promotion !== only.promotion) continue;
      if (only.promotions && !only.promotions.has(campaign.promotion)) continue;
      if (only.campaigns && !only.campaigns.has(campaign.campaign_id)) continue;
      yield {
        day,
        counters: fact.counters,
        seed: fact.seed ^ Math.imul(day, 0x85ebca6b),
        dims: {
          advertiser_id: advertiserId,
          campaign_id: campaign.campaign_id,
          item_group_id: fact.item?.item_group_id ?? '-1',
          item_id: fact.item?.item_id ?? '-1',
          room_id: fact.room?.room_id ?? '-1',
          duration: String(fact.room?.duration ?? 0),
        },
      };
    }
  }
}

/**
 * GET /gmv_max/report/get/: one store's GMV Max numbers. Product dimensions (item_group_id, item_id) read
 * PRODUCT campaigns only and live dimensions (room_id, duration) LIVE campaigns only, so mixing them is refused.
 */
export function gmvReport(ctx: CallContext): ApiResult {
  const params = ctx.params;
  const advertiserId = params.id('advertiser_id');
  const storeIds = params.stringArray('store_ids', { max: 1 });
  const startDay = params.date('start_date');
  const endDay = params.date('end_date');
  const metrics = params.stringArray('metrics', { max: 100 });
  const dimensions = params.stringArray('dimensions', { max: 3 });
  const filtering = params.optionalObject('filtering');
  let campaigns: Set<string> | undefined;
  let promotions: Set<string> | undefined;
  if (filtering) {
    const reader = new FilterReader(params, filtering, ['campaign_ids', 'gmv_max_promotion_types']);
    campaigns = reader.ids('campaign_ids');
    promotions = reader.someOf('gmv_max_promotion_types', ['PRODUCT', 'LIVE'] as const);
  }
  const sortField = params.optionalString('sort_field');
  const sortType = params.enumOf('sort_type', ['ASC', 'DESC'] as const, 'DESC') ?? 'DESC';
  const { page, pageSize } = params.page();
  if (params.error) return params.error;

  const problem = checkDimensions(dimensions, GMV_DIMENSIONS, 'the GMV Max report');
  if (problem) return problem;
  const wantsProduct = dimensions.some((dimension) => PRODUCT_DIMENSIONS.includes(dimension));
  const wantsLive = dimensions.some((dimension) => LIVE_DIMENSIONS.includes(dimension));
  if (wantsProduct && wantsLive) {
    return paramError('dimensions: item_group_id/item_id (PRODUCT) cannot be combined with room_id/duration (LIVE).');
  }
  const unknown = metrics.filter((metric) => !GMV_METRICS.has(metric));
  if (unknown.length > 0) return paramError(`metrics: Invalid metric(s): ${unknown.join(', ')}.`);
  if (sortField !== undefined && !GMV_METRICS.has(sortField)) {
    return paramError(`sort_field: Invalid sort field: ${sortField}.`);
  }
  const span = checkDateRange(startDay as number, endDay as number, dimensions);
  if (span) return span;

  const denied = checkAdvertiser(ctx, advertiserId);
  if (denied) return denied;
  const world = ctx.services.world.advertiser(advertiserId);
  const storeId = storeIds[0] as string;
  const store = world?.stores.find((candidate) => candidate.record.store_id === storeId);
  if (!world || !store) return paramError(`store_ids: Store ${storeId} is not a store of advertiser ${advertiserId}.`);

  const only = {
    promotion: wantsProduct ? ('PRODUCT' as const) : wantsLive ? ('LIVE' as const) : undefined,
    campaigns,
    promotions,
  };
  const key = JSON.stringify([
    'gmv',
    advertiserId,
    storeId,
    dimensions,
    startDay,
    endDay,
    campaigns ? [...campaigns].sort() : null,
    promotions ? [...promotions].sort() : null,
    sortField,
    sortType,
  ]);
  const rows = ctx.services.reports.getOrBuild(key, () =>
    sortRows(
      aggregateFacts(
        storeFacts(advertiserId, store, startDay as number, endDay as number, world.currencyFactor, only),
        dimensions,
        [],
        GMV_COUNTERS.length,
      ),
      { field: sortField, type: sortType },
      GMV_METRICS,
    ),
  );
  return ok(pageOfRows(rows, dimensions, metrics, GMV_METRICS, page, pageSize));
}
