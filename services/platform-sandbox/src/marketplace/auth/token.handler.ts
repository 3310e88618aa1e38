import { MARKET_MESSAGES, MarketError, marketError, topLevel, type MarketResult } from '../envelope';
import type { MarketParams } from '../params.reader';
import { findMarketShop, MARKET_SHOPS } from '../sandbox-shops';
import type { MarketApp, MarketGrantStore, TokenPair } from './market-grant.store';

const DAY_S = 86_400;

/** What a public (partner-level) handler sees: the parameters and the calling app, already authenticated. */
export interface PublicCallContext {
  params: MarketParams;
  app: MarketApp;
  store: MarketGrantStore;
  now: () => number;
}

export type PublicHandler = (ctx: PublicCallContext) => MarketResult;

/** Seconds left of the new access token, as the platform's expire_in. */
export function expireIn(pair: TokenPair, now: number): number {
  return Math.floor((pair.access_expires_at - now) / 1000);
}

/** partner_id and shop_id of a token body: JSON numbers, partner_id the caller's own. */
function bodyIds(ctx: PublicCallContext): { shopId: number } | MarketResult {
  const { params } = ctx;
  const partnerId = params.bodyRequired('partner_id', 'number');
  const shopId = params.bodyRequired('shop_id', 'number');
  if (params.error) return params.error;
  if (partnerId !== ctx.app.partner_id) return marketError(MarketError.PARAM, 'partner_id in the body does not match.');
  if (!findMarketShop(shopId as number)) return marketError(MarketError.PARAM, 'Invalid shop_id.');
  return { shopId: shopId as number };
}

/** POST /api/v2/auth/token/get: a single-use code from the authorization page for the first token pair. */
export function getAccessToken(ctx: PublicCallContext): MarketResult {
  const code = ctx.params.bodyRequired('code', 'string');
  const ids = bodyIds(ctx);
  if (!('shopId' in ids)) return ids;
  const pair = ctx.store.exchangeAuthCode(code as string, ctx.app.partner_id, ids.shopId);
  if (!pair) return marketError(MarketError.AUTH, MARKET_MESSAGES.invalidCode);
  return topLevel({
    access_token: pair.access_token,
    refresh_token: pair.refresh_token,
    expire_in: expireIn(pair, ctx.now()),
    shop_id_list: [ids.shopId],
    merchant_id_list: [],
  });
}

/**
 * POST /api/v2/auth/access_token/get: rotation. The refresh token is spent at once; a second use (or an
 * unknown, expired or revoked one) is error_param "Invalid refresh_token." (one of the two values the
 * platform is seen to use; the other is error_auth).
 */
export function refreshAccessToken(ctx: PublicCallContext): MarketResult {
  const refreshToken = ctx.params.bodyRequired('refresh_token', 'string');
  const ids = bodyIds(ctx);
  if (!('shopId' in ids)) return ids;
  const pair = ctx.store.refresh(refreshToken as string, ctx.app.partner_id, ids.shopId);
  if (!pair) return marketError(MarketError.PARAM, MARKET_MESSAGES.invalidRefreshToken);
  return topLevel({
    partner_id: ctx.app.partner_id,
    shop_id: ids.shopId,
    access_token: pair.access_token,
    refresh_token: pair.refresh_token,
    expire_in: expireIn(pair, ctx.now()),
  });
}

/** GET /api/v2/public/get_shops_by_partner: the shops that authorized the calling app, paged by page_no. */
export function getShopsByPartner(ctx: PublicCallContext): MarketResult {
  const pageSize = ctx.params.int('page_size', { min: 1, max: 100, fallback: 100 });
  const pageNo = ctx.params.int('page_no', { min: 1, max: 10_000, fallback: 1 });
  if (ctx.params.error) return ctx.params.error;
  const latest = new Map<number, number>();
  for (const grant of ctx.store.liveGrants(ctx.app.partner_id)) {
    latest.set(grant.shop_id, Math.floor(grant.created_at / 1000));
  }
  const shops = MARKET_SHOPS.filter((shop) => latest.has(shop.shop_id));
  const page = shops.slice((pageNo - 1) * pageSize, pageNo * pageSize);
  return topLevel({
    authed_shop_list: page.map((shop) => {
      const authTime = latest.get(shop.shop_id) ?? 0;
      return {
        shop_id: shop.shop_id,
        region: shop.region,
        auth_time: authTime,
        expire_time: authTime + 365 * DAY_S,
        sip_affi_shops: [],
      };
    }),
    more: pageNo * pageSize < shops.length,
  });
}
