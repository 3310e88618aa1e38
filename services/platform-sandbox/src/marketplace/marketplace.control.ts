import { z } from 'zod';
import type { ControlReply } from '../control/control.handler';
import type { ModuleControl } from '../platform-modules';
import type { MarketGrantStore } from './auth/market-grant.store';
import type { MarketCallLimit } from './call-limit';
import { findMarketShop, MARKET_SHOPS } from './sandbox-shops';
import { badRequest, parseControlBody } from '../control/control-reply';

const GrantBody = z.object({ partner_id: z.number().int(), shop_id: z.number().int() }).strict();

const RevokeBody = z.union([
  z.object({ partner_id: z.number().int(), shop_id: z.number().int() }).strict(),
  z.object({ access_token: z.string().min(1) }).strict(),
  z.object({ refresh_token: z.string().min(1) }).strict(),
]);

/** 0 turns the limit off; null goes back to SANDBOX_MARKETPLACE_DAILY_CALL_LIMIT. */
const CallLimitBody = z.object({ daily_limit: z.number().int().min(0).nullable() }).strict();

/**
 * Test/dev routes under /_sandbox/marketplace: mint a grant of one shop to one app without the browser,
 * cancel a grant as the seller would, list the shops and the three apps, and read or set the daily call limit.
 */
export function marketplaceControl(
  store: MarketGrantStore,
  now: () => number,
  callLimit: MarketCallLimit,
): ModuleControl {
  function mint(body: string): ControlReply {
    const parsed = GrantBody.safeParse(parseControlBody(body));
    if (!parsed.success) return badRequest('body must be {"partner_id": <number>, "shop_id": <number>}');
    const app = store.findApp(parsed.data.partner_id);
    if (!app) return badRequest(`unknown partner_id ${parsed.data.partner_id}`);
    const shop = findMarketShop(parsed.data.shop_id);
    if (!shop) return badRequest(`unknown shop_id ${parsed.data.shop_id}`);
    const pair = store.mint(app.partner_id, shop.shop_id);
    return {
      status: 201,
      payload: {
        partner_id: app.partner_id,
        app_type: app.type,
        shop_id: shop.shop_id,
        access_token: pair.access_token,
        refresh_token: pair.refresh_token,
        expire_in: Math.floor((pair.access_expires_at - now()) / 1000),
        access_token_expires_at: Math.floor(pair.access_expires_at / 1000),
        refresh_token_expires_at: Math.floor(pair.refresh_expires_at / 1000),
        shop,
      },
    };
  }

  function revoke(body: string): ControlReply {
    const parsed = RevokeBody.safeParse(parseControlBody(body));
    if (!parsed.success) {
      return badRequest(
        'body must be {"partner_id": <number>, "shop_id": <number>}, {"access_token": "..."} or {"refresh_token": "..."}',
      );
    }
    const target = parsed.data;
    const revoked =
      'access_token' in target
        ? store.revokeByAccessToken(target.access_token)
        : 'refresh_token' in target
          ? store.revokeByRefreshToken(target.refresh_token)
          : store.revokeShop(target.partner_id, target.shop_id);
    return { status: 200, payload: { revoked } };
  }

  function shops(): ControlReply {
    return {
      status: 200,
      payload: {
        apps: store.apps.map((app) => ({ partner_id: app.partner_id, app_type: app.type, name: app.name })),
        shops: MARKET_SHOPS,
      },
    };
  }

  /** Sets the daily call limit of every app and shop and starts the day's counts again. */
  function setCallLimit(body: string): ControlReply {
    const parsed = CallLimitBody.safeParse(parseControlBody(body));
    if (!parsed.success) return badRequest('body must be {"daily_limit": <integer >= 0, 0 = off> | null}');
    callLimit.setLimit(parsed.data.daily_limit ?? undefined);
    return { status: 200, payload: callLimit.status() };
  }

  return {
    prefix: 'marketplace',
    handle(method, path, _query, body) {
      switch (`${method} ${path}`) {
        case 'POST /grants':
          return mint(body);
        case 'POST /revoke':
          return revoke(body);
        case 'GET /shops':
          return shops();
        case 'GET /call-limit':
          return { status: 200, payload: callLimit.status() };
        case 'POST /call-limit':
          return setCallLimit(body);
        default:
          return { status: 404, payload: { error: `no control route ${method} /_sandbox/marketplace${path}` } };
      }
    },
  };
}
