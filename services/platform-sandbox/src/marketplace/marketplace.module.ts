import { AppQpsLimiter } from '../limits/app-qps.limiter';
import { definePlatformModule, type ModuleConfig, type ModuleReply } from '../platform-modules';
import { AUTH_PARTNER_PATH, MarketAuthorizeFlow } from './auth/authorize.handler';
import { MarketGrantStore, type MarketApp } from './auth/market-grant.store';
import { MarketCallLimit } from './call-limit';
import { MarketWorld } from './data/market-data.generator';
import { envelope, MARKET_MESSAGES, MarketError, marketError, newRequestId, type MarketResult } from './envelope';
import { MARKETPLACE_PREFIX, MarketplaceApi } from './marketplace.api';
import { MARKETPLACE_ENV } from './marketplace.config';
import { marketplaceControl } from './marketplace.control';

const REFRESH_PATH = '/api/v2/auth/access_token/get';

/** The three partner apps of the gateway at the platform, from config. */
function marketApps(config: ModuleConfig<typeof MARKETPLACE_ENV>): MarketApp[] {
  return [
    {
      partner_id: Number(config.SANDBOX_MARKETPLACE_SELLER_PARTNER_ID),
      partner_key: config.SANDBOX_MARKETPLACE_SELLER_PARTNER_KEY,
      type: 'seller',
      name: 'Data Gateway (seller)',
    },
    {
      partner_id: Number(config.SANDBOX_MARKETPLACE_ADS_PARTNER_ID),
      partner_key: config.SANDBOX_MARKETPLACE_ADS_PARTNER_KEY,
      type: 'ads',
      name: 'Data Gateway (ads)',
    },
    {
      partner_id: Number(config.SANDBOX_MARKETPLACE_AFFILIATE_PARTNER_ID),
      partner_key: config.SANDBOX_MARKETPLACE_AFFILIATE_PARTNER_KEY,
      type: 'affiliate',
      name: 'Data Gateway (affiliate)',
    },
  ];
}

/** marketplace = Shopee Open Platform v2: host partner.shopeemobile.com mounted at /marketplace. */
export const marketplaceModule = definePlatformModule({
  name: 'marketplace',
  env: MARKETPLACE_ENV,
  create(config, { now, logger }) {
    const store = new MarketGrantStore(marketApps(config), now, {
      authCodeMs: config.SANDBOX_MARKETPLACE_AUTH_CODE_TTL_MS,
      accessMs: config.SANDBOX_MARKETPLACE_ACCESS_TOKEN_TTL_MS,
      refreshMs: config.SANDBOX_MARKETPLACE_REFRESH_TOKEN_TTL_MS,
    });
    const callLimit = new MarketCallLimit(config.SANDBOX_MARKETPLACE_DAILY_CALL_LIMIT, now);
    const api = new MarketplaceApi(
      store,
      { world: new MarketWorld(now), now },
      new AppQpsLimiter(config.SANDBOX_MARKETPLACE_APP_QPS, now),
      callLimit,
    );
    const authorize = new MarketAuthorizeFlow(
      api,
      store,
      {
        formAction: `${MARKETPLACE_PREFIX}${AUTH_PARTNER_PATH}`,
        redirectPrefixes: config.SANDBOX_MARKETPLACE_REDIRECT_URIS,
        ticketMs: config.SANDBOX_MARKETPLACE_AUTH_CODE_TTL_MS,
      },
      now,
    );

    const answer = (result: MarketResult): ModuleReply => {
      const { status, payload } = envelope(result, newRequestId());
      return { kind: 'json', status, payload };
    };

    return {
      prefixes: [MARKETPLACE_PREFIX],
      control: marketplaceControl(store, now, callLimit),
      faults: {
        // Token exchange and refresh, and the authorization page.
        exemptRoots: [`${MARKETPLACE_PREFIX}/api/v2/auth`, `${MARKETPLACE_PREFIX}${AUTH_PARTNER_PATH}`],
        rateLimitReply: () => {
          const { status, payload } = envelope(
            marketError(MarketError.RATE_LIMIT, MARKET_MESSAGES.rateLimit),
            newRequestId(),
          );
          return { status, headers: {}, payload };
        },
      },
      handle(request) {
        const path = request.path.slice(MARKETPLACE_PREFIX.length);
        if (path === AUTH_PARTNER_PATH && (request.method === 'GET' || request.method === 'POST')) {
          return authorize.handle(request.method, request.query, request.body);
        }
        try {
          const reply = answer(api.handle(request.method, path, request.query, request.body));
          // Fault control: the refresh is done (the old refresh token is spent) before its answer leaves.
          const delayMs = config.SANDBOX_MARKETPLACE_REFRESH_ANSWER_DELAY_MS;
          return path === REFRESH_PATH && delayMs > 0 && reply.kind === 'json' ? { ...reply, delayMs } : reply;
        } catch (error) {
          logger?.error({ err: error, path: request.path }, 'marketplace handler failed');
          return answer(marketError(MarketError.SERVER, MARKET_MESSAGES.server));
        }
      },
    };
  },
});
