import { findAdvertiser, SANDBOX_BUSINESS_CENTERS, type SandboxAdvertiser } from '../sandbox-accounts';
import { checkAdvertiser, type CallContext, type Handler } from '../call-context';
import {
  generateAdvertiserTree,
  type AdGroupModel,
  type AdModel,
  type CampaignModel,
  type PrimaryStatus,
} from '../data/advertiser-tree.generator';
import { parseDateTime } from '../data/calendar';
import type { AdvertiserWorld } from '../data/world';
import { ok, type ApiResult } from '../envelope';
import { FilterReader } from '../params.reader';
import { pageInfo } from '../report/report.engine';
import { project } from './projection';

type Entity = 'campaign' | 'adgroup' | 'ad';

const FIELD_SAMPLE_ADVERTISER = SANDBOX_BUSINESS_CENTERS[0]?.advertisers[0]?.advertiser_id ?? '';
type Model = CampaignModel | AdGroupModel | AdModel;

export const PRIMARY_STATUS_FILTERS = [
  'STATUS_ALL',
  'STATUS_NOT_DELETE',
  'STATUS_NOT_DELIVERY',
  'STATUS_DELIVERY_OK',
  'STATUS_DISABLE',
  'STATUS_DELETE',
] as const;
type PrimaryStatusFilter = (typeof PRIMARY_STATUS_FILTERS)[number];

const OBJECTIVE_TYPES = [
  'REACH',
  'TRAFFIC',
  'VIDEO_VIEWS',
  'LEAD_GENERATION',
  'ENGAGEMENT',
  'APP_PROMOTION',
  'WEB_CONVERSIONS',
  'PRODUCT_SALES',
  'RF_REACH',
] as const;

const BUYING_TYPES = ['AUCTION', 'RESERVATION_RF', 'RESERVATION_TOP_VIEW'] as const;

/** Filter keys per endpoint (docs/providers.md table, video-ads). */
const FILTER_KEYS: Record<Entity, readonly string[]> = {
  campaign: [
    'campaign_ids',
    'campaign_name',
    'primary_status',
    'secondary_status',
    'objective_type',
    'buying_types',
    'campaign_type',
    'creation_filter_start_time',
    'creation_filter_end_time',
  ],
  adgroup: [
    'adgroup_ids',
    'campaign_ids',
    'adgroup_name',
    'primary_status',
    'secondary_status',
    'objective_type',
    'optimization_goal',
    'billing_events',
    'buying_types',
    'creation_filter_start_time',
    'creation_filter_end_time',
  ],
  ad: [
    'ad_ids',
    'adgroup_ids',
    'campaign_ids',
    'ad_name',
    'primary_status',
    'secondary_status',
    'objective_type',
    'buying_types',
    'creation_filter_start_time',
    'creation_filter_end_time',
  ],
};

interface ListFilter {
  campaignIds?: Set<string>;
  adgroupIds?: Set<string>;
  adIds?: Set<string>;
  name?: string;
  primary: PrimaryStatusFilter;
  secondary?: string;
  objective?: string;
  buyingTypes?: Set<string>;
  campaignType?: string;
  optimizationGoal?: string;
  billingEvents?: Set<string>;
  createdFrom?: number;
  createdTo?: number;
}

function primaryMatches(filter: PrimaryStatusFilter, primary: PrimaryStatus): boolean {
  switch (filter) {
    case 'STATUS_ALL':
      return true;
    case 'STATUS_NOT_DELETE':
      return primary !== 'STATUS_DELETE';
    default:
      return filter === primary;
  }
}

function campaignOf(model: Model): CampaignModel {
  return 'campaign' in model ? model.campaign : model;
}

function matches(entity: Entity, model: Model, filter: ListFilter): boolean {
  const record = model.record;
  if (!primaryMatches(filter.primary, model.primary)) return false;
  if (filter.secondary !== undefined && model.secondary !== filter.secondary) return false;
  if (filter.campaignIds && !filter.campaignIds.has(record['campaign_id'] as string)) return false;
  if (filter.adgroupIds && !filter.adgroupIds.has(record['adgroup_id'] as string)) return false;
  if (filter.adIds && !filter.adIds.has(record['ad_id'] as string)) return false;
  if (filter.objective !== undefined && campaignOf(model).record.objective_type !== filter.objective) return false;
  // Every sandbox campaign is an auction campaign.
  if (filter.buyingTypes && !filter.buyingTypes.has('AUCTION')) return false;
  if (filter.campaignType !== undefined && record['campaign_type'] !== filter.campaignType) return false;
  if (filter.optimizationGoal !== undefined && record['optimization_goal'] !== filter.optimizationGoal) return false;
  if (filter.billingEvents && !filter.billingEvents.has(record['billing_event'] as string)) return false;
  if (filter.createdFrom !== undefined && model.createdAt < filter.createdFrom) return false;
  if (filter.createdTo !== undefined && model.createdAt > filter.createdTo) return false;
  if (filter.name !== undefined) {
    const name = String(record[`${entity}_name`] ?? '').toLowerCase();
    if (!name.includes(filter.name.toLowerCase())) return false;
  }
  return true;
}

function readFilter(ctx: CallContext, entity: Entity): ListFilter {
  const filter: ListFilter = { primary: 'STATUS_NOT_DELETE' };
  const filtering = ctx.params.optionalObject('filtering');
  if (!filtering) return filter;
  const reader = new FilterReader(ctx.params, filtering, FILTER_KEYS[entity]);
  filter.campaignIds = reader.ids('campaign_ids');
  filter.adgroupIds = reader.ids('adgroup_ids');
  filter.adIds = reader.ids('ad_ids');
  filter.name = reader.text(`${entity}_name`);
  filter.primary = reader.oneOf('primary_status', PRIMARY_STATUS_FILTERS) ?? 'STATUS_NOT_DELETE';
  filter.secondary = reader.text('secondary_status');
  filter.objective = reader.oneOf('objective_type', OBJECTIVE_TYPES);
  filter.buyingTypes = reader.someOf('buying_types', BUYING_TYPES);
  filter.campaignType = reader.oneOf('campaign_type', ['REGULAR_CAMPAIGN', 'IOS14_CAMPAIGN'] as const);
  filter.optimizationGoal = reader.text('optimization_goal');
  filter.billingEvents = reader.ids('billing_events');
  for (const [key, target] of [
    ['creation_filter_start_time', 'createdFrom'],
    ['creation_filter_end_time', 'createdTo'],
  ] as const) {
    const text = reader.text(key);
    if (text === undefined) continue;
    const seconds = parseDateTime(text);
    if (seconds === undefined)
      ctx.params.fail(`filtering.${key}: Not a valid datetime, the format is YYYY-MM-DD HH:MM:SS.`);
    filter[target] = seconds;
  }
  return filter;
}

function itemsOf(world: AdvertiserWorld, entity: Entity): readonly Model[] {
  switch (entity) {
    case 'campaign':
      return world.campaigns;
    case 'adgroup':
      return world.adgroups;
    case 'ad':
      return world.ads;
  }
}

let fieldNames: Record<Entity, Set<string>> | undefined;

/** Field names of each record type, read off a generated record so the two never drift apart. */
function knownFields(entity: Entity): Set<string> {
  if (!fieldNames) {
    const tree = generateAdvertiserTree(findAdvertiser(FIELD_SAMPLE_ADVERTISER) as SandboxAdvertiser);
    const keys = (models: readonly Model[]) => new Set(Object.keys((models[0] as Model).record));
    fieldNames = { campaign: keys(tree.campaigns), adgroup: keys(tree.adgroups), ad: keys(tree.ads) };
  }
  return fieldNames[entity];
}

/** GET /campaign/get/, /adgroup/get/, /ad/get/: one advertiser's records, filtered, newest first, paged. */
export function entityListHandler(entity: Entity): Handler {
  return (ctx): ApiResult => {
    const advertiserId = ctx.params.id('advertiser_id');
    const selected = ctx.params.fields(knownFields(entity));
    const filter = readFilter(ctx, entity);
    const { page, pageSize } = ctx.params.page();
    if (ctx.params.error) return ctx.params.error;
    const denied = checkAdvertiser(ctx, advertiserId);
    if (denied) return denied;
    const world = ctx.services.world.advertiser(advertiserId);
    const all = world ? itemsOf(world, entity).filter((model) => matches(entity, model, filter)) : [];
    const list = all.slice((page - 1) * pageSize, page * pageSize).map((model) => project(model.record, selected));
    return ok({ list, page_info: pageInfo(all.length, page, pageSize) });
  };
}
