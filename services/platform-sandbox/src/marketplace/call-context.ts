import type { MarketApp, MarketGrant } from './auth/market-grant.store';
import type { MarketShopData, MarketWorld } from './data/market-data.generator';
import { paramError, type MarketResult } from './envelope';
import type { MarketParams } from './params.reader';
import type { MarketShop } from './sandbox-shops';

export interface MarketServices {
  world: MarketWorld;
  now: () => number;
}

/** What a shop-level handler sees: the parameters, the calling app, its grant and the shop. */
export interface MarketCallContext {
  params: MarketParams;
  app: MarketApp;
  grant: MarketGrant;
  shop: MarketShop;
  services: MarketServices;
}

export type MarketHandler = (ctx: MarketCallContext) => MarketResult;

export function dataOf(ctx: MarketCallContext): MarketShopData {
  return ctx.services.world.data(ctx.shop);
}

/** The parameter error a handler recorded (a handler calls this only after a failed read). */
export function failed(ctx: MarketCallContext): MarketResult {
  return ctx.params.error ?? paramError('Invalid parameters.');
}
