import type { ShopGrant } from './auth/shop-grant.store';
import type { ShopWorld } from './data/shop-data.generator';
import type { ShopResult } from './envelope';
import type { ShopParams } from './params.reader';
import type { SandboxSeller, SandboxShop } from './sandbox-sellers';

export interface ShopServices {
  world: ShopWorld;
  now: () => number;
}

/** Everything a handler sees: parameters, the authenticated grant and seller, and on shop paths the shop. */
export interface ShopCallContext {
  params: ShopParams;
  grant: ShopGrant;
  seller: SandboxSeller;
  /** The shop of shop_cipher; the router sets it on every shop-scoped path. */
  shop: SandboxShop | undefined;
  /** Values of the `{name}` segments of the route, e.g. order_id. */
  pathParams: Readonly<Record<string, string>>;
  services: ShopServices;
}

export type ShopHandler = (ctx: ShopCallContext) => ShopResult;

export function shopOf(ctx: ShopCallContext): SandboxShop {
  if (!ctx.shop) throw new Error('shop-scoped handler reached without a shop');
  return ctx.shop;
}
