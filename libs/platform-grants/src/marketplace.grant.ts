import { GrantEnvReader, type AuthorizationPageGrantPlugin } from './grant-plugin';
import { GrantExchangeError, redacted, type PlatformGrant } from './platform-grant';
import { marketplaceSign } from './marketplace.signature';

/**
 * The marketplace shop grant (docs/providers.md, marketplace "Grant"), one per partner app: the seller app
 * (`marketplace`), the ads app (`marketplace-ads`) and the affiliate app (`marketplace-affiliate`) are separate
 * applications of one platform with separate grants, so one shop that uses all three is three connections.
 * The shop owner approves the app on `/api/v2/shop/auth_partner`; the platform comes back with `code` and
 * `shop_id`, and the code is exchanged at `/api/v2/auth/token/get` for the shop's token pair of this app.
 */
export type MarketplaceProvider = 'marketplace' | 'marketplace-ads' | 'marketplace-affiliate';

export interface MarketplaceApp {
  /** Platform base, e.g. https://partner.shopeemobile.com (the sandbox's /marketplace locally). */
  baseUrl: string;
  partnerId: string;
  /** HMAC key of the app. Never logged, never in a URL. */
  partnerKey: string;
}

export interface MarketplaceGrantOptions {
  /** Clock of the signed timestamps and of the stored expiries (tests). */
  now?: () => number;
  /** How long a refresh token lives from its issue; 30 days unless the platform is set up otherwise (tests). */
  refreshTokenLifetimeMs?: number;
  fetch?: typeof fetch;
}

export const MARKETPLACE_AUTH_PARTNER_PATH = '/api/v2/shop/auth_partner';
export const MARKETPLACE_TOKEN_PATH = '/api/v2/auth/token/get';
/** Refresh tokens live 30 days from their issue; the token answer does not say so. */
const DEFAULT_REFRESH_TOKEN_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
const TIMEOUT_MS = 15_000;
/** Shop ids are JSON numbers below 2^53 (docs/providers.md); digits only, so the body's number is exact. */
const SHOP_ID = /^[1-9]\d{0,15}$/;

interface TokenAnswer {
  access_token?: unknown;
  refresh_token?: unknown;
  expire_in?: unknown;
  error?: unknown;
  message?: unknown;
}

/** The URL under a base that may itself carry a path prefix (the sandbox mounts the platform at /marketplace). */
function under(base: string, path: string): URL {
  return new URL(`${base.replace(/\/+$/, '')}${path}`);
}

export function marketplaceGrant(
  provider: MarketplaceProvider,
  app: MarketplaceApp,
  options: MarketplaceGrantOptions = {},
): PlatformGrant {
  const now = options.now ?? Date.now;
  const refreshTokenLifetimeMs = options.refreshTokenLifetimeMs ?? DEFAULT_REFRESH_TOKEN_LIFETIME_MS;
  const doFetch = options.fetch ?? fetch;
  const seconds = () => Math.floor(now() / 1000);

  /** A public call's URL: partner_id, timestamp and the sign over partner_id + path + timestamp. */
  function signed(path: string): URL {
    const timestamp = seconds();
    const url = under(app.baseUrl, path);
    url.searchParams.set('partner_id', app.partnerId);
    url.searchParams.set('timestamp', String(timestamp));
    url.searchParams.set('sign', marketplaceSign(app.partnerKey, app.partnerId, path, timestamp));
    return url;
  }

  return {
    provider,
    // A connection is one shop of this app: a re-grant renews it only when the owner approves the same shop.
    regrantMatch: 'same_accounts',
    authorizationUrl(state, redirectUri) {
      // The platform returns to `redirect` adding only code and shop_id, so the state travels inside it.
      const redirect = new URL(redirectUri);
      redirect.searchParams.set('state', state);
      const url = signed(MARKETPLACE_AUTH_PARTNER_PATH);
      url.searchParams.set('redirect', redirect.toString());
      return url.toString();
    },
    async exchange(query) {
      const code = query.code;
      const shopId = query.shop_id;
      if (!code) throw new GrantExchangeError(0, 'the callback carries no code');
      if (!shopId || !SHOP_ID.test(shopId)) throw new GrantExchangeError(0, 'the callback carries no valid shop_id');
      const response = await doFetch(signed(MARKETPLACE_TOKEN_PATH), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, partner_id: Number(app.partnerId), shop_id: Number(shopId) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      let answer: TokenAnswer;
      try {
        answer = (await response.json()) as TokenAnswer;
      } catch {
        throw new GrantExchangeError(response.status, 'the platform answered no JSON');
      }
      // Errors come with HTTP 200 and a non-empty `error` string (error_auth "Invalid code.", error_sign, ...).
      if ((typeof answer.error === 'string' && answer.error !== '') || !response.ok) {
        const message = `${String(answer.error ?? response.status)}: ${String(answer.message ?? 'no message')}`;
        throw new GrantExchangeError(response.status, redacted(message, [app.partnerKey, code]));
      }
      const accessToken = answer.access_token;
      const refreshToken = answer.refresh_token;
      const expireIn = answer.expire_in;
      if (typeof accessToken !== 'string' || accessToken === '' || typeof refreshToken !== 'string') {
        throw new GrantExchangeError(response.status, 'the token answer has no access_token or refresh_token');
      }
      if (typeof expireIn !== 'number' || !Number.isFinite(expireIn) || expireIn <= 0) {
        throw new GrantExchangeError(response.status, 'the token answer has no expire_in');
      }
      const issued = now();
      return [
        {
          externalAccountIds: [shopId],
          credentials: {
            access_token: accessToken,
            refresh_token: refreshToken,
            access_token_expires_at: new Date(issued + expireIn * 1000).toISOString(),
            refresh_token_expires_at: new Date(issued + refreshTokenLifetimeMs).toISOString(),
            attributes: { shop_id: shopId },
          },
        },
      ];
    },
  };
}

/** Each app's variables: `<prefix>_PARTNER_ID` and `<prefix>_PARTNER_KEY` (the same names as provider-proxy's). */
const ENV_PREFIX: Readonly<Record<MarketplaceProvider, string>> = {
  marketplace: 'MARKETPLACE',
  'marketplace-ads': 'MARKETPLACE_ADS',
  'marketplace-affiliate': 'MARKETPLACE_AFFILIATE',
};
const DEFAULT_BASE_URL = 'https://partner.shopeemobile.com';

/**
 * The plug-in definition of one marketplace app: offered only when its `_PARTNER_ID` (digits: the code exchange
 * sends it as a JSON number) and `_PARTNER_KEY` (never logged) are both set. MARKETPLACE_BASE_URL, the host of all
 * three apps, defaults to the platform's and is checked even when no app is set.
 */
export function marketplaceGrantPlugin(provider: MarketplaceProvider): AuthorizationPageGrantPlugin {
  const prefix = ENV_PREFIX[provider];
  return {
    provider,
    connect: 'authorization_page',
    fromEnv(env) {
      const read = new GrantEnvReader(env);
      const baseUrl = read.url('MARKETPLACE_BASE_URL', DEFAULT_BASE_URL);
      const partnerId = read.matching(`${prefix}_PARTNER_ID`, /^\d{1,15}$/, 'must be digits');
      const partnerKey = read.optionalText(`${prefix}_PARTNER_KEY`);
      read.done();
      if (partnerId === undefined || partnerKey === undefined) return undefined;
      return marketplaceGrant(provider, { baseUrl, partnerId, partnerKey });
    },
  };
}
