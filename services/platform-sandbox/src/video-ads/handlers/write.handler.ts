import { checkAdvertiser, type CallContext, type Handler } from '../call-context';
import { formatDateTime } from '../data/calendar';
import { ok, type ApiResult } from '../envelope';
import type { ParamReader } from '../params.reader';

const OPERATIONS = ['ENABLE', 'DISABLE', 'DELETE'] as const;
const OBJECTIVES = [
  'REACH',
  'TRAFFIC',
  'VIDEO_VIEWS',
  'LEAD_GENERATION',
  'ENGAGEMENT',
  'APP_PROMOTION',
  'WEB_CONVERSIONS',
  'PRODUCT_SALES',
] as const;
const BUDGET_MODES = ['BUDGET_MODE_DAY', 'BUDGET_MODE_TOTAL', 'BUDGET_MODE_INFINITE'] as const;

function newId(prefix: string): string {
  let id = prefix;
  while (id.length < 19) id += Math.floor(Math.random() * 10).toString();
  return id;
}

/**
 * Shared shape of the write paths: advertiser_id, then the path's own parameters, then the permission
 * check, then a plausible answer. Writes change nothing: the generated world stays deterministic, and these
 * paths exist so tests can prove (through the request log) that the gateway never forwards one.
 */
function write(build: (params: ParamReader, ctx: CallContext, advertiserId: string) => object): Handler {
  return (ctx): ApiResult => {
    const advertiserId = ctx.params.id('advertiser_id');
    const data = build(ctx.params, ctx, advertiserId);
    if (ctx.params.error) return ctx.params.error;
    const denied = checkAdvertiser(ctx, advertiserId);
    if (denied) return denied;
    return ok(data);
  };
}

function statusUpdate(idsName: string): Handler {
  return write((params) => {
    const ids = params.stringArray(idsName, { max: 100 });
    const status = params.requiredEnum('operation_status', OPERATIONS);
    return { [idsName]: ids, status };
  });
}

const now = (ctx: CallContext): string => formatDateTime(Math.floor(ctx.services.now() / 1000));

/** POST write paths of the real API (path after /open_api/v1.3). */
export const WRITE_HANDLERS: Record<string, Handler> = {
  '/campaign/create/': write((params, ctx, advertiserId) => {
    const name = params.string('campaign_name');
    const objective = params.requiredEnum('objective_type', OBJECTIVES);
    const budgetMode = params.enumOf('budget_mode', BUDGET_MODES, 'BUDGET_MODE_INFINITE');
    return {
      advertiser_id: advertiserId,
      campaign_id: newId('17'),
      campaign_name: name,
      objective_type: objective,
      budget_mode: budgetMode,
      budget: params.optionalNumber('budget') ?? 0,
      operation_status: params.enumOf('operation_status', ['ENABLE', 'DISABLE'] as const, 'ENABLE'),
      create_time: now(ctx),
    };
  }),
  '/campaign/update/': write((params, ctx, advertiserId) => ({
    advertiser_id: advertiserId,
    campaign_id: params.id('campaign_id'),
    campaign_name: params.optionalString('campaign_name'),
    budget: params.optionalNumber('budget'),
    modify_time: now(ctx),
  })),
  '/campaign/status/update/': statusUpdate('campaign_ids'),
  '/adgroup/create/': write((params, ctx, advertiserId) => ({
    advertiser_id: advertiserId,
    campaign_id: params.id('campaign_id'),
    adgroup_id: newId('18'),
    adgroup_name: params.string('adgroup_name'),
    operation_status: 'ENABLE',
    create_time: now(ctx),
  })),
  '/adgroup/update/': write((params, ctx, advertiserId) => ({
    advertiser_id: advertiserId,
    adgroup_id: params.id('adgroup_id'),
    adgroup_name: params.optionalString('adgroup_name'),
    modify_time: now(ctx),
  })),
  '/adgroup/status/update/': statusUpdate('adgroup_ids'),
  '/ad/create/': write((params, ctx, advertiserId) => {
    const adgroupId = params.id('adgroup_id');
    const creatives = params.optionalArray('creatives');
    if (!creatives || creatives.length === 0) params.fail('creatives: Missing data for required field.');
    const adIds = (creatives ?? []).map(() => newId('19'));
    return {
      advertiser_id: advertiserId,
      adgroup_id: adgroupId,
      ad_ids: adIds,
      creatives: (creatives ?? []).map((creative, index) => ({
        ...(typeof creative === 'object' && creative !== null ? creative : {}),
        ad_id: adIds[index],
        create_time: now(ctx),
      })),
    };
  }),
  '/ad/update/': write((params, ctx, advertiserId) => {
    const adgroupId = params.id('adgroup_id');
    const creatives = params.optionalArray('creatives') ?? [];
    return { advertiser_id: advertiserId, adgroup_id: adgroupId, creatives, modify_time: now(ctx) };
  }),
  '/ad/status/update/': statusUpdate('ad_ids'),
  '/ad/delete/': write((params) => ({ ad_ids: params.stringArray('ad_ids', { max: 100 }) })),
};
