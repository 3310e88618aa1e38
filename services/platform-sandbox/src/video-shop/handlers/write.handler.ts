import { randomInt } from 'node:crypto';
import type { ShopCallContext, ShopHandler } from '../call-context';
import { ok, type ShopResult } from '../envelope';
import type { ShopParams } from '../params.reader';

function newId(prefix: string): string {
  let id = prefix;
  while (id.length < 19) id += String(randomInt(10));
  return id;
}

/**
 * Write paths authenticate and validate like reads, then answer code 0 with a tiny plausible result but
 * change nothing: generated data stays deterministic, and these paths exist so tests can prove through the
 * request log whether a write reached the platform.
 */
function write(build: (params: ShopParams, ctx: ShopCallContext) => object): ShopHandler {
  return (ctx): ShopResult => {
    const data = build(ctx.params, ctx);
    if (ctx.params.error) return ctx.params.error;
    return ok(data);
  };
}

export const cancelOrder = write((_params, ctx) => ({
  cancel_id: newId('58'),
  order_id: ctx.pathParams.order_id,
  cancel_status: 'CANCELLATION_REQUEST_SUCCESS',
}));

export const createProduct = write((params) => {
  params.requiredBodyString('title');
  const skus = params.bodyArray('skus') ?? [];
  return {
    product_id: newId('17'),
    skus: skus.map((sku) => ({
      id: newId('17'),
      seller_sku:
        typeof sku === 'object' && sku !== null && typeof (sku as { seller_sku?: unknown }).seller_sku === 'string'
          ? (sku as { seller_sku: string }).seller_sku
          : '',
    })),
    warnings: [],
  };
});

export const updateProduct = write((params, ctx) => {
  params.bodyString('title');
  return { product_id: ctx.pathParams.product_id, skus: [], warnings: [] };
});

export const activateProducts = write((params) => {
  const ids = params.bodyStringArray('product_ids', 20);
  if (!ids || ids.length === 0) params.fail('product_ids is required.');
  return { errors: [] };
});

export const upsertWebhook = write((params) => {
  params.requiredBodyString('event_type');
  const address = params.requiredBodyString('address');
  if (address !== '' && !/^https?:\/\//.test(address)) params.fail('address must be an http(s) URL.');
  return {};
});

export const shipPackage = write((_params, ctx) => ({ package_id: ctx.pathParams.package_id }));

export const approveReturn = write((_params, ctx) => ({ return_id: ctx.pathParams.return_id }));
