import type { ShopCallContext } from '../call-context';
import { ok, type ShopResult } from '../envelope';
import { shopRecord } from '../sandbox-sellers';

/** GET /authorization/202309/shops: the granted seller's shops, each with the cipher shop paths need. */
export function authorizedShops(ctx: ShopCallContext): ShopResult {
  return ok({ shops: ctx.seller.shops.map(shopRecord) });
}

/** GET /seller/202309/shops: the seller's active shops (no cipher here). */
export function sellerShops(ctx: ShopCallContext): ShopResult {
  return ok({
    shops: ctx.seller.shops.map((shop) => ({
      id: shop.id,
      name: shop.name,
      region: shop.region,
      seller_type: shop.seller_type,
      code: shop.code,
    })),
  });
}
