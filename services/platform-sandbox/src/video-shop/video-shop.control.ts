import { z } from 'zod';
import type { ControlReply } from '../control/control.handler';
import type { ModuleControl } from '../platform-modules';
import { SHOP_SCOPES, type ShopGrantStore } from './auth/shop-grant.store';
import { tokenData } from './auth/token.handler';
import { findSeller, findSellerOfShop, SANDBOX_SELLERS, shopRecord } from './sandbox-sellers';
import { badRequest, parseControlBody } from '../control/control-reply';

const GrantBody = z
  .object({
    open_id: z.string().min(1).optional(),
    shop_id: z.string().min(1).optional(),
    scopes: z.array(z.string().min(1)).optional(),
  })
  .strict()
  .refine((body) => (body.open_id === undefined) !== (body.shop_id === undefined), {
    message: 'give open_id or shop_id',
  });

const RevokeBody = z.union([
  z.object({ access_token: z.string().min(1) }).strict(),
  z.object({ refresh_token: z.string().min(1) }).strict(),
  z.object({ open_id: z.string().min(1) }).strict(),
]);

/**
 * Test/dev routes under /_sandbox/video-shop: mint a grant without the browser (seeding the local stack),
 * cancel a grant as the seller would, and list the sellers.
 */
export function videoShopControl(store: ShopGrantStore): ModuleControl {
  function mint(body: string): ControlReply {
    const parsed = GrantBody.safeParse(parseControlBody(body));
    if (!parsed.success) {
      return badRequest('body must be {"open_id": "..."} or {"shop_id": "..."}, optionally with "scopes": [...]');
    }
    const { open_id: openId, shop_id: shopId, scopes = SHOP_SCOPES } = parsed.data;
    const seller = openId !== undefined ? findSeller(openId) : findSellerOfShop(shopId ?? '');
    if (!seller) return badRequest(`unknown seller or shop: ${openId ?? shopId}`);
    const unknownScope = scopes.find((scope) => !SHOP_SCOPES.includes(scope));
    if (unknownScope !== undefined) return badRequest(`unknown scope ${unknownScope}`);
    const pair = store.mint(seller.open_id, scopes);
    return {
      status: 201,
      payload: { app_key: store.app.app_key, ...tokenData(pair), shops: seller.shops.map(shopRecord) },
    };
  }

  function revoke(body: string): ControlReply {
    const parsed = RevokeBody.safeParse(parseControlBody(body));
    if (!parsed.success) {
      return badRequest('body must be {"access_token": "..."}, {"refresh_token": "..."} or {"open_id": "..."}');
    }
    const target = parsed.data;
    const revoked =
      'access_token' in target
        ? store.revokeByAccessToken(target.access_token)
        : 'refresh_token' in target
          ? store.revokeByRefreshToken(target.refresh_token)
          : store.revokeSeller(target.open_id);
    return { status: 200, payload: { revoked } };
  }

  function sellers(): ControlReply {
    return {
      status: 200,
      payload: {
        app_key: store.app.app_key,
        scopes: SHOP_SCOPES,
        sellers: SANDBOX_SELLERS.map((seller) => ({
          open_id: seller.open_id,
          seller_name: seller.name,
          seller_base_region: seller.base_region,
          shops: seller.shops.map((shop) => ({ ...shopRecord(shop), currency: shop.currency })),
        })),
      },
    };
  }

  return {
    prefix: 'video-shop',
    handle(method, path, _query, body) {
      switch (`${method} ${path}`) {
        case 'POST /grants':
          return mint(body);
        case 'POST /revoke':
          return revoke(body);
        case 'GET /sellers':
          return sellers();
        default:
          return { status: 404, payload: { error: `no control route ${method} /_sandbox/video-shop${path}` } };
      }
    },
  };
}
