import type { IncomingHttpHeaders } from 'node:http';
import type { AppQpsLimiter } from '../limits/app-qps.limiter';
import type { ShopGrantStore } from './auth/shop-grant.store';
import type { ShopHandler, ShopServices } from './call-context';
import { paramError, SHOP_MESSAGES, ShopCode, shopError, type ShopResult } from './envelope';
import { shopPerformance } from './handlers/analytics.handler';
import { statements } from './handlers/finance.handler';
import { getOrders, searchOrders } from './handlers/orders.handler';
import { searchProducts } from './handlers/products.handler';
import { authorizedShops, sellerShops } from './handlers/shops.handler';
import {
  activateProducts,
  approveReturn,
  cancelOrder,
  createProduct,
  shipPackage,
  updateProduct,
  upsertWebhook,
} from './handlers/write.handler';
import { ShopParams } from './params.reader';
import { findSeller, type SandboxShop } from './sandbox-sellers';
import { verifySign } from './signature';

/** Mount of the platform's API host (open-api.tiktokglobalshop.com) in the sandbox. */
export const VIDEO_SHOP_PREFIX = '/video-shop';

/** Seconds a request timestamp may differ from the platform clock, either way. */
const TIMESTAMP_WINDOW_S = 30;

interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT';
  /** Platform path; `{name}` stands for a numeric id segment. */
  path: string;
  scope: string;
  handler: ShopHandler;
}

const ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/authorization/202309/shops', scope: 'seller.authorization.info', handler: authorizedShops },
  { method: 'GET', path: '/seller/202309/shops', scope: 'seller.shop.info', handler: sellerShops },
  { method: 'POST', path: '/order/202309/orders/search', scope: 'seller.order.info', handler: searchOrders },
  { method: 'GET', path: '/order/202309/orders', scope: 'seller.order.info', handler: getOrders },
  { method: 'POST', path: '/product/202309/products/search', scope: 'seller.product.basic', handler: searchProducts },
  { method: 'POST', path: '/product/202502/products/search', scope: 'seller.product.basic', handler: searchProducts },
  { method: 'GET', path: '/finance/202309/statements', scope: 'seller.finance.info', handler: statements },
  {
    method: 'GET',
    path: '/analytics/202405/shop/performance',
    scope: 'data.shop_analytics.public.read',
    handler: shopPerformance,
  },
  // Writes: served so that a leaked write shows up in the request log with a success answer.
  {
    method: 'POST',
    path: '/order/202309/orders/{order_id}/cancel',
    scope: 'seller.return_refund.basic',
    handler: cancelOrder,
  },
  { method: 'POST', path: '/product/202309/products', scope: 'seller.product.write', handler: createProduct },
  {
    method: 'PUT',
    path: '/product/202309/products/{product_id}',
    scope: 'seller.product.write',
    handler: updateProduct,
  },
  {
    method: 'POST',
    path: '/product/202309/products/activate',
    scope: 'seller.product.write',
    handler: activateProducts,
  },
  { method: 'POST', path: '/event/202309/webhooks', scope: 'seller.webhook', handler: upsertWebhook },
  {
    method: 'POST',
    path: '/fulfillment/202309/packages/{package_id}/ship',
    scope: 'seller.fulfillment.basic',
    handler: shipPackage,
  },
  {
    method: 'POST',
    path: '/return_refund/202309/returns/{return_id}/approve',
    scope: 'seller.return_refund.basic',
    handler: approveReturn,
  },
];

interface CompiledRoute extends RouteSpec {
  pattern: RegExp;
  names: string[];
  /** Everything but /authorization/* and /seller/* acts on one shop and needs shop_cipher. */
  shopScoped: boolean;
}

function compile(route: RouteSpec): CompiledRoute {
  const names: string[] = [];
  const source = route.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    names.push(name);
    return '(\\d{1,24})';
  });
  const shopScoped = !route.path.startsWith('/authorization/') && !route.path.startsWith('/seller/');
  return { ...route, pattern: new RegExp(`^${source}$`), names, shopScoped };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The query as decoded pairs; a repeated name is refused because the signed string would be ambiguous. */
function parseQuery(raw: string): Map<string, string> | ShopResult {
  const query = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(raw)) {
    if (query.has(name)) return paramError(`Invalid params: ${name} is given more than once.`);
    query.set(name, value);
  }
  return query;
}

type BodyOutcome = { ok: true; body: Record<string, unknown> } | { ok: false; error: ShopResult };

function parseBody(body: string, contentType: string | undefined): BodyOutcome {
  if (body.trim() === '') return { ok: true, body: {} };
  if (!(contentType ?? '').toLowerCase().startsWith('application/json')) {
    return {
      ok: false,
      error: paramError('Invalid params: a request body must be sent with Content-Type: application/json.'),
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, error: paramError('Invalid params: the request body is not valid JSON.') };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, error: paramError('Invalid params: the request body must be a JSON object.') };
  }
  return { ok: true, body: parsed as Record<string, unknown> };
}

/**
 * The simulated TikTok Shop Partner API. Order of checks: route and method, query shape, app_key,
 * timestamp window, signature, app QPS, access token, shop_cipher, scope, body, then the path's handler.
 */
export class VideoShopApi {
  private readonly routes = ROUTES.map(compile);

  constructor(
    private readonly store: ShopGrantStore,
    private readonly services: ShopServices,
    private readonly qps: AppQpsLimiter,
  ) {}

  /** `path` is the platform path (after /video-shop), which is also the path that is signed. */
  handle(method: string, path: string, rawQuery: string, headers: IncomingHttpHeaders, body: string): ShopResult {
    const candidates = this.routes.filter((route) => route.pattern.test(path));
    if (candidates.length === 0) {
      return shopError(ShopCode.NOT_FOUND, `Not found: ${path} is not an API path.`, 404);
    }
    const route = candidates.find((candidate) => candidate.method === method);
    if (!route) {
      const allowed = candidates.map((candidate) => candidate.method).join(', ');
      return shopError(ShopCode.METHOD_NOT_ALLOWED, `Method ${method} is not allowed on ${path}; use ${allowed}.`, 405);
    }
    const query = parseQuery(rawQuery);
    if (!(query instanceof Map)) return query;

    const app = this.store.app;
    if (query.get('app_key') !== app.app_key) {
      return shopError(ShopCode.INVALID_CREDENTIALS, SHOP_MESSAGES.invalidAppKey, 401);
    }
    const timestamp = query.get('timestamp') ?? '';
    const nowSeconds = Math.floor(this.services.now() / 1000);
    if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Number(timestamp) - nowSeconds) > TIMESTAMP_WINDOW_S) {
      return shopError(ShopCode.INVALID_CREDENTIALS, SHOP_MESSAGES.staleTimestamp, 401);
    }
    const contentType = header(headers, 'content-type');
    const signed = verifySign(
      { appSecret: app.app_secret, path, params: query, body, contentType },
      query.get('sign') ?? '',
    );
    if (!signed) return shopError(ShopCode.INVALID_SIGN, SHOP_MESSAGES.invalidSign, 401);
    if (!this.qps.tryAcquire(app.app_key)) {
      return shopError(ShopCode.TOO_MANY_REQUESTS, SHOP_MESSAGES.tooManyRequests, 429);
    }

    const lookup = this.store.lookupAccess(header(headers, 'x-tts-access-token') ?? '');
    if (!lookup.ok) {
      return lookup.reason === 'expired'
        ? shopError(ShopCode.EXPIRED_TOKEN, SHOP_MESSAGES.expiredToken, 401)
        : shopError(ShopCode.INVALID_CREDENTIALS, SHOP_MESSAGES.invalidToken, 401);
    }
    const { grant } = lookup;
    const seller = findSeller(grant.open_id);
    if (!seller) return shopError(ShopCode.INVALID_CREDENTIALS, SHOP_MESSAGES.invalidToken, 401);

    const cipher = query.get('shop_cipher');
    let shop: SandboxShop | undefined;
    if (!route.shopScoped) {
      if (cipher !== undefined) {
        return shopError(ShopCode.INVALID_CREDENTIALS, SHOP_MESSAGES.unexpectedShopCipher, 400);
      }
    } else {
      if (cipher === undefined || cipher === '') {
        return shopError(ShopCode.MISSING_SHOP_CIPHER, SHOP_MESSAGES.missingShopCipher, 400);
      }
      shop = seller.shops.find((candidate) => candidate.cipher === cipher);
      if (!shop) return shopError(ShopCode.INVALID_CREDENTIALS, SHOP_MESSAGES.invalidShopCipher, 400);
    }
    if (!grant.scopes.includes(route.scope)) {
      return shopError(ShopCode.MISSING_SCOPE, SHOP_MESSAGES.missingScope(route.scope), 403);
    }

    const parsedBody = parseBody(body, contentType);
    if (!parsedBody.ok) return parsedBody.error;
    const match = route.pattern.exec(path) as RegExpExecArray;
    const pathParams = Object.fromEntries(route.names.map((name, index) => [name, match[index + 1] as string]));
    return route.handler({
      params: new ShopParams(query, parsedBody.body),
      grant,
      seller,
      shop,
      pathParams,
      services: this.services,
    });
  }
}
