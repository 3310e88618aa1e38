import { randomInt } from 'node:crypto';
import { failed, type MarketCallContext } from '../call-context';
import { ok, type MarketResult } from '../envelope';

/**
 * Writes authenticate and validate like reads and answer success, but change nothing, so the generated data
 * stays deterministic; a write that leaks through the gateway shows in the request log.
 */
function checked(ctx: MarketCallContext, fields: Record<string, 'string' | 'number' | 'object' | 'array'>): boolean {
  for (const [name, type] of Object.entries(fields)) ctx.params.bodyRequired(name, type);
  return ctx.params.error === undefined;
}

export function cancelOrder(ctx: MarketCallContext): MarketResult {
  if (!checked(ctx, { order_sn: 'string', cancel_reason: 'string' })) return failed(ctx);
  return ok({ update_time: Math.floor(ctx.services.now() / 1000) });
}

export function shipOrder(ctx: MarketCallContext): MarketResult {
  if (!checked(ctx, { order_sn: 'string' })) return failed(ctx);
  return ok({});
}

export function addItem(ctx: MarketCallContext): MarketResult {
  if (!checked(ctx, { item_name: 'string', original_price: 'number', category_id: 'number' })) {
    return failed(ctx);
  }
  return ok({
    item_id: 30_000_000_000 + randomInt(0, 999_999_999),
    item_name: ctx.params.bodyValue('item_name'),
    item_status: 'NORMAL',
  });
}

export function updateItem(ctx: MarketCallContext): MarketResult {
  if (!checked(ctx, { item_id: 'number' })) return failed(ctx);
  return ok({ item_id: ctx.params.bodyValue('item_id') });
}

export function createProductLevelCampaign(ctx: MarketCallContext): MarketResult {
  if (!checked(ctx, { budget: 'number', start_date: 'string' })) return failed(ctx);
  return ok({ campaign_id: 7_000_000_000 + randomInt(0, 999_999_999) });
}

export function editProductLevelCampaignSettingInfo(ctx: MarketCallContext): MarketResult {
  if (!checked(ctx, { campaign_id: 'number', edit_action: 'string' })) return failed(ctx);
  return ok({ campaign_id: ctx.params.bodyValue('campaign_id') });
}
