import { AppQpsLimiter } from '../limits/app-qps.limiter';
import { definePlatformModule, type ModuleReply, type ModuleRequest } from '../platform-modules';
import { ShopAuthorizeFlow } from './auth/authorize.handler';
import { ShopGrantStore } from './auth/shop-grant.store';
import { getToken, refreshToken } from './auth/token.handler';
import { ShopWorld } from './data/shop-data.generator';
import { envelope, newRequestId, SHOP_MESSAGES, ShopCode, shopError, type ShopResult } from './envelope';
import { VIDEO_SHOP_PREFIX, VideoShopApi } from './video-shop.api';
import { VIDEO_SHOP_ENV } from './video-shop.config';
import { videoShopControl } from './video-shop.control';

/** Mount of the platform's auth host (auth.tiktok-shops.com) in the sandbox. */
export const VIDEO_SHOP_AUTH_PREFIX = '/video-shop-auth';
export const VIDEO_SHOP_AUTHORIZE_PATH = `${VIDEO_SHOP_AUTH_PREFIX}/oauth/authorize`;

const TOKEN_ROUTES = new Map<string, typeof getToken>([
  ['/api/v2/token/get', getToken],
  ['/api/v2/token/refresh', refreshToken],
]);

/** A form or query as a map; a POSTed form wins over the query for the same name. */
function formOf(request: ModuleRequest): Map<string, string> {
  const form = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(request.query)) form.set(name, value);
  if (request.method === 'POST') for (const [name, value] of new URLSearchParams(request.body)) form.set(name, value);
  return form;
}

/** video-shop = the TikTok Shop Partner API (202309 versions): its API host and its auth host. */
export const videoShopModule = definePlatformModule({
  name: 'video-shop',
  env: VIDEO_SHOP_ENV,
  create(config, { now, logger }) {
    const store = new ShopGrantStore(
      {
        app_key: config.SANDBOX_VIDEO_SHOP_APP_KEY,
        app_secret: config.SANDBOX_VIDEO_SHOP_APP_SECRET,
        name: 'Data Gateway',
        redirectUris: config.SANDBOX_VIDEO_SHOP_REDIRECT_URIS,
      },
      now,
      {
        authCodeMs: config.SANDBOX_AUTH_CODE_TTL_MS,
        accessMs: config.SANDBOX_VIDEO_SHOP_ACCESS_TOKEN_TTL_MS,
        refreshMs: config.SANDBOX_VIDEO_SHOP_REFRESH_TOKEN_TTL_MS,
      },
    );
    const api = new VideoShopApi(
      store,
      { world: new ShopWorld(now), now },
      new AppQpsLimiter(config.SANDBOX_VIDEO_SHOP_APP_QPS, now),
    );
    const authorize = new ShopAuthorizeFlow(store, VIDEO_SHOP_AUTHORIZE_PATH);

    const answer = (result: ShopResult): ModuleReply => ({
      kind: 'json',
      status: result.status,
      payload: envelope(result, newRequestId(now())),
    });

    function guarded(path: string, run: () => ShopResult): ShopResult {
      try {
        return run();
      } catch (error) {
        logger?.error({ err: error, path }, 'video-shop handler failed');
        return shopError(ShopCode.INTERNAL_ERROR, SHOP_MESSAGES.internalError, 500);
      }
    }

    function handleAuthHost(request: ModuleRequest): ModuleReply {
      const path = request.path.slice(VIDEO_SHOP_AUTH_PREFIX.length);
      if (request.path === VIDEO_SHOP_AUTHORIZE_PATH) {
        if (request.method === 'GET' || request.method === 'POST') {
          return authorize.handle(request.method, formOf(request));
        }
        return answer(
          shopError(ShopCode.METHOD_NOT_ALLOWED, `Method ${request.method} is not allowed; use GET or POST.`, 405),
        );
      }
      const route = TOKEN_ROUTES.get(path);
      if (!route) return answer(shopError(ShopCode.NOT_FOUND, `Not found: ${path} is not an auth path.`, 404));
      if (request.method !== 'GET') {
        return answer(shopError(ShopCode.METHOD_NOT_ALLOWED, `Method ${request.method} is not allowed; use GET.`, 405));
      }
      return answer(guarded(request.path, () => route(store, new URLSearchParams(request.query))));
    }

    return {
      prefixes: [VIDEO_SHOP_PREFIX, VIDEO_SHOP_AUTH_PREFIX],
      control: videoShopControl(store),
      faults: {
        exemptRoots: [VIDEO_SHOP_AUTH_PREFIX],
        rateLimitReply: () => ({
          status: 429,
          headers: {},
          payload: envelope(
            shopError(ShopCode.TOO_MANY_REQUESTS, SHOP_MESSAGES.tooManyRequests, 429),
            newRequestId(now()),
          ),
        }),
      },
      handle(request) {
        if (request.path === VIDEO_SHOP_AUTH_PREFIX || request.path.startsWith(`${VIDEO_SHOP_AUTH_PREFIX}/`)) {
          return handleAuthHost(request);
        }
        const path = request.path.slice(VIDEO_SHOP_PREFIX.length);
        return answer(
          guarded(request.path, () => api.handle(request.method, path, request.query, request.headers, request.body)),
        );
      },
    };
  },
});
