import type { AppQpsLimiter } from '../limits/app-qps.limiter';
import type { AppType, MarketApp, MarketGrantStore } from './auth/market-grant.store';
import type { MarketCallLimit } from './call-limit';
import { getAccessToken, getShopsByPartner, refreshAccessToken, type PublicHandler } from './auth/token.handler';
import type { MarketHandler, MarketServices } from './call-context';
import { MARKET_MESSAGES, MarketError, marketError, paramError, type MarketResult } from './envelope';
import {
  getAllCpcAdsDailyPerformance,
  getProductCampaignDailyPerformance,
  getProductLevelCampaignIdList,
  getTotalBalance,
} from './handlers/ads.handler';
import { getConversionReport, getPerformanceDataUpdateTime, getShopPerformance } from './handlers/ams.handler';
import { getItemBaseInfo, getItemList, getOrderDetail, getOrderList, getShopInfo } from './handlers/seller.handler';
import {
  addItem,
  cancelOrder,
  createProductLevelCampaign,
  editProductLevelCampaignSettingInfo,
  shipOrder,
  updateItem,
} from './handlers/write.handler';
import { MarketParams } from './params.reader';
import { findMarketShop } from './sandbox-shops';
import { baseString, verifySign } from './signature';

/** Mount of the platform host (partner.shopeemobile.com) in the sandbox. */
export const MARKETPLACE_PREFIX = '/marketplace';

/** The platform accepts a timestamp up to 5 minutes old or ahead. */
const TIMESTAMP_WINDOW_S = 300;

type Route =
  | { method: 'GET' | 'POST'; access: 'public'; handler: PublicHandler }
  | { method: 'GET' | 'POST'; access: 'shop'; app: AppType; handler: MarketHandler };

/** Platform path -> route. Shop/order/product/logistics are the seller app's, ads/* the ads app's, ams/* AMS. */
const ROUTES = new Map<string, Route>([
  ['/api/v2/auth/token/get', { method: 'POST', access: 'public', handler: getAccessToken }],
  ['/api/v2/auth/access_token/get', { method: 'POST', access: 'public', handler: refreshAccessToken }],
  ['/api/v2/public/get_shops_by_partner', { method: 'GET', access: 'public', handler: getShopsByPartner }],
  ['/api/v2/shop/get_shop_info', { method: 'GET', access: 'shop', app: 'seller', handler: getShopInfo }],
  ['/api/v2/order/get_order_list', { method: 'GET', access: 'shop', app: 'seller', handler: getOrderList }],
  ['/api/v2/order/get_order_detail', { method: 'GET', access: 'shop', app: 'seller', handler: getOrderDetail }],
  ['/api/v2/product/get_item_list', { method: 'GET', access: 'shop', app: 'seller', handler: getItemList }],
  ['/api/v2/product/get_item_base_info', { method: 'GET', access: 'shop', app: 'seller', handler: getItemBaseInfo }],
  ['/api/v2/ads/get_total_balance', { method: 'GET', access: 'shop', app: 'ads', handler: getTotalBalance }],
  [
    '/api/v2/ads/get_all_cpc_ads_daily_performance',
    { method: 'GET', access: 'shop', app: 'ads', handler: getAllCpcAdsDailyPerformance },
  ],
  [
    '/api/v2/ads/get_product_level_campaign_id_list',
    { method: 'GET', access: 'shop', app: 'ads', handler: getProductLevelCampaignIdList },
  ],
  [
    '/api/v2/ads/get_product_campaign_daily_performance',
    { method: 'GET', access: 'shop', app: 'ads', handler: getProductCampaignDailyPerformance },
  ],
  [
    '/api/v2/ams/get_shop_performance',
    { method: 'GET', access: 'shop', app: 'affiliate', handler: getShopPerformance },
  ],
  [
    '/api/v2/ams/get_conversion_report',
    { method: 'GET', access: 'shop', app: 'affiliate', handler: getConversionReport },
  ],
  [
    '/api/v2/ams/get_performance_data_update_time',
    { method: 'GET', access: 'shop', app: 'affiliate', handler: getPerformanceDataUpdateTime },
  ],
  // Writes: served so that a write leaking through the gateway shows in the request log with a success answer.
  ['/api/v2/order/cancel_order', { method: 'POST', access: 'shop', app: 'seller', handler: cancelOrder }],
  ['/api/v2/logistics/ship_order', { method: 'POST', access: 'shop', app: 'seller', handler: shipOrder }],
  ['/api/v2/product/add_item', { method: 'POST', access: 'shop', app: 'seller', handler: addItem }],
  ['/api/v2/product/update_item', { method: 'POST', access: 'shop', app: 'seller', handler: updateItem }],
  [
    '/api/v2/ads/create_product_level_campaign',
    { method: 'POST', access: 'shop', app: 'ads', handler: createProductLevelCampaign },
  ],
  [
    '/api/v2/ads/edit_product_level_campaign_setting_info',
    { method: 'POST', access: 'shop', app: 'ads', handler: editProductLevelCampaignSettingInfo },
  ],
]);

export function parseQuery(raw: string): Map<string, string[]> {
  const query = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(raw)) {
    const values = query.get(name);
    if (values) values.push(value);
    else query.set(name, [value]);
  }
  return query;
}

/** A common parameter: exactly once when present. */
function single(query: Map<string, string[]>, name: string): string | undefined | MarketResult {
  const values = query.get(name);
  if (!values || values.length === 0 || values[0] === '') return undefined;
  if (values.length > 1) return paramError(`${name} is given more than once.`);
  return values[0];
}

function parseBody(body: string): Record<string, unknown> | MarketResult {
  if (body.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return paramError('The request body is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return paramError('The request body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

const isResult = (value: unknown): value is MarketResult =>
  typeof value === 'object' && value !== null && 'kind' in value;

/**
 * The simulated Shopee Open Platform v2. Order of checks: route and method, partner_id, timestamp window,
 * (shop calls) shop_id and access_token present, sign, app QPS, app type, access token for this app and
 * shop, the app's daily call limit for the shop, body, then the path's parameters.
 */
export class MarketplaceApi {
  constructor(
    private readonly store: MarketGrantStore,
    private readonly services: MarketServices,
    private readonly qps: AppQpsLimiter,
    private readonly callLimit: MarketCallLimit,
  ) {}

  /** Partner and signature of a call, shared with the authorization page (a public call too). */
  authenticatePublic(query: Map<string, string[]>, path: string): { app: MarketApp } | MarketResult {
    return this.authenticate(query, path, undefined);
  }

  /** `path` is the platform path (after /marketplace), which is also the path that is signed. */
  handle(method: string, path: string, rawQuery: string, body: string): MarketResult {
    const route = ROUTES.get(path);
    // Our choice: a known path with the other method answers like an unknown one (HTTP 404, error_not_found).
    if (!route || route.method !== method) {
      return marketError(MarketError.NOT_FOUND, `Not found: ${method} ${path}.`, 404);
    }
    const query = parseQuery(rawQuery);
    let shop: { shopId: string; accessToken: string } | undefined;
    if (route.access === 'shop') {
      const shopId = single(query, 'shop_id');
      if (isResult(shopId)) return shopId;
      const accessToken = single(query, 'access_token');
      if (isResult(accessToken)) return accessToken;
      shop = { shopId: shopId ?? '', accessToken: accessToken ?? '' };
    }
    const authenticated = this.authenticate(query, path, shop);
    if (isResult(authenticated)) return authenticated;
    const { app } = authenticated;
    if (!this.qps.tryAcquire(String(app.partner_id))) {
      return marketError(MarketError.RATE_LIMIT, MARKET_MESSAGES.rateLimit);
    }
    if (route.access === 'shop' && route.app !== app.type) {
      return marketError(MarketError.PERMISSION, MARKET_MESSAGES.noPermission);
    }

    let grant;
    let marketShop;
    if (route.access === 'shop' && shop) {
      const lookup = this.store.lookupAccess(shop.accessToken);
      const shopId = Number(shop.shopId);
      if (!lookup.ok || lookup.grant.partner_id !== app.partner_id || lookup.grant.shop_id !== shopId) {
        return marketError(MarketError.AUTH, MARKET_MESSAGES.invalidAccessToken);
      }
      grant = lookup.grant;
      marketShop = findMarketShop(shopId);
      if (!marketShop) return marketError(MarketError.AUTH, MARKET_MESSAGES.invalidAccessToken);
      // Like every platform error, error_limit comes with HTTP 200.
      if (!this.callLimit.tryCall(app.partner_id, shopId)) {
        return marketError(MarketError.CALL_LIMIT, MARKET_MESSAGES.callLimit);
      }
    }

    const parsedBody = method === 'POST' ? parseBody(body) : {};
    if (isResult(parsedBody)) return parsedBody;
    const params = new MarketParams(query, parsedBody);
    if (route.access === 'public') {
      return route.handler({ params, app, store: this.store, now: this.services.now });
    }
    if (!grant || !marketShop) throw new Error('unreachable: shop route without a grant');
    return route.handler({ params, app, grant, shop: marketShop, services: this.services });
  }

  private authenticate(
    query: Map<string, string[]>,
    path: string,
    shop: { shopId: string; accessToken: string } | undefined,
  ): { app: MarketApp } | MarketResult {
    const partnerId = single(query, 'partner_id');
    if (isResult(partnerId)) return partnerId;
    if (partnerId === undefined) return paramError(MARKET_MESSAGES.noPartnerId);
    const app = /^\d{1,15}$/.test(partnerId) ? this.store.findApp(Number(partnerId)) : undefined;
    if (!app) return paramError(MARKET_MESSAGES.invalidPartnerId);

    const timestamp = single(query, 'timestamp');
    if (isResult(timestamp)) return timestamp;
    if (timestamp === undefined) return paramError(MARKET_MESSAGES.noTimestamp);
    const nowSeconds = Math.floor(this.services.now() / 1000);
    if (!/^\d{1,11}$/.test(timestamp) || Math.abs(Number(timestamp) - nowSeconds) > TIMESTAMP_WINDOW_S) {
      return paramError(MARKET_MESSAGES.timestampExpired);
    }
    if (shop) {
      if (shop.shopId === '') return paramError(MARKET_MESSAGES.noShopId);
      if (!/^\d{1,16}$/.test(shop.shopId)) return paramError('Invalid shop_id.');
      if (shop.accessToken === '') return paramError(MARKET_MESSAGES.noAccessToken);
    }
    const sign = single(query, 'sign');
    if (isResult(sign)) return sign;
    if (sign === undefined) return paramError(MARKET_MESSAGES.noSign);
    const base = baseString({
      partnerId,
      path,
      timestamp,
      ...(shop ? { accessToken: shop.accessToken, shopId: shop.shopId } : {}),
    });
    if (!verifySign(app.partner_key, base, sign)) return marketError(MarketError.SIGN, MARKET_MESSAGES.wrongSign);
    return { app };
  }
}
