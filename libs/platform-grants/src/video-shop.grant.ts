import { GrantEnvReader, type AuthorizationPageGrantPlugin } from './grant-plugin';
import { GrantExchangeError, redacted, type GrantedAccount, type PlatformGrant } from './platform-grant';
import { videoShopSign } from './video-shop.signature';

/**
 * The video-shop seller grant (docs/providers.md, video-shop "Grant"): the seller authorizes the app on the
 * platform's authorization page, the code is exchanged at /api/v2/token/get for a token pair of the seller, and
 * the signed /authorization/202309/shops lists the shops the grant covers, each with the cipher shop paths need.
 */
export interface VideoShopApp {
  /** API base, e.g. https://open-api.tiktokglobalshop.com (the sandbox's /video-shop locally). */
  apiBaseUrl: string;
  /** Auth base, e.g. https://auth.tiktok-shops.com (the sandbox's /video-shop-auth locally). */
  authBaseUrl: string;
  appKey: string;
  appSecret: string;
}

export interface VideoShopGrantOptions {
  /** Clock of the signed call's timestamp (tests). */
  now?: () => number;
  fetch?: typeof fetch;
}

interface Envelope<T> {
  code?: number;
  message?: string;
  data?: T | null;
}

interface TokenData {
  access_token?: string;
  /** Absolute unix seconds, despite the name. */
  access_token_expire_in?: number;
  refresh_token?: string;
  refresh_token_expire_in?: number;
  open_id?: string;
}

interface AuthorizedShop {
  id?: string;
  name?: string;
  region?: string;
  cipher?: string;
}

export const VIDEO_SHOP_SHOPS_PATH = '/authorization/202309/shops';
const TIMEOUT_MS = 15_000;

/** The URL under a base that may itself carry a path prefix (the sandbox mounts the platform at /video-shop). */
function under(base: string, path: string): URL {
  return new URL(`${base.replace(/\/+$/, '')}${path}`);
}

function isoFromUnixSeconds(seconds: number | undefined): string | undefined {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0
    ? new Date(seconds * 1000).toISOString()
    : undefined;
}

export function videoShopGrant(app: VideoShopApp, options: VideoShopGrantOptions = {}): PlatformGrant {
  const now = options.now ?? Date.now;
  const doFetch = options.fetch ?? fetch;

  /** Reads the envelope; a refusal becomes a GrantExchangeError without any secret or token in it. */
  async function read<T>(response: Response, tokens: ReadonlyArray<string | undefined>): Promise<T> {
    let envelope: Envelope<T>;
    try {
      envelope = (await response.json()) as Envelope<T>;
    } catch {
      throw new GrantExchangeError(response.status, 'the platform answered no JSON');
    }
    if (envelope.code !== 0 || envelope.data === null || envelope.data === undefined) {
      const message = redacted(String(envelope.message ?? 'no message'), [app.appSecret, ...tokens]);
      throw new GrantExchangeError(Number(envelope.code ?? response.status), message);
    }
    return envelope.data;
  }

  async function exchangeCode(code: string): Promise<TokenData> {
    const url = under(app.authBaseUrl, '/api/v2/token/get');
    url.searchParams.set('app_key', app.appKey);
    url.searchParams.set('app_secret', app.appSecret);
    url.searchParams.set('auth_code', code);
    url.searchParams.set('grant_type', 'authorized_code');
    const data = await read<TokenData>(await doFetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) }), [code]);
    if (!data.access_token) throw new GrantExchangeError(0, 'the token answer has no access_token');
    return data;
  }

  /** The signed shop list; no shop_cipher on /authorization/* (the platform refuses it there). */
  async function authorizedShops(accessToken: string): Promise<AuthorizedShop[]> {
    const params: [string, string][] = [
      ['app_key', app.appKey],
      ['timestamp', String(Math.floor(now() / 1000))],
    ];
    const url = under(app.apiBaseUrl, VIDEO_SHOP_SHOPS_PATH);
    for (const [name, value] of params) url.searchParams.set(name, value);
    url.searchParams.set('sign', videoShopSign(app.appSecret, VIDEO_SHOP_SHOPS_PATH, params));
    const response = await doFetch(url, {
      headers: { 'x-tts-access-token': accessToken, 'content-type': 'application/json' },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const data = await read<{ shops?: AuthorizedShop[] }>(response, [accessToken]);
    return data.shops ?? [];
  }

  return {
    provider: 'video-shop',
    regrantMatch: 'same_accounts',
    authorizationUrl(state, redirectUri) {
      const url = under(app.authBaseUrl, '/oauth/authorize');
      url.searchParams.set('app_key', app.appKey);
      url.searchParams.set('state', state);
      url.searchParams.set('redirect_uri', redirectUri);
      return url.toString();
    },
    async exchange(query) {
      if (!query.code) throw new GrantExchangeError(0, 'the callback carries no code');
      const token = await exchangeCode(query.code);
      const accessToken = token.access_token!;
      const shops = await authorizedShops(accessToken);
      const expiries = {
        access_token_expires_at: isoFromUnixSeconds(token.access_token_expire_in),
        refresh_token_expires_at: isoFromUnixSeconds(token.refresh_token_expire_in),
      };
      // One connection per shop (spec 1): every shop shares the seller's token pair and keeps its own cipher.
      return shops
        .filter((shop): shop is AuthorizedShop & { id: string; cipher: string } => !!shop.id && !!shop.cipher)
        .map((shop): GrantedAccount => ({
          externalAccountIds: [shop.id],
          credentials: {
            access_token: accessToken,
            ...(token.refresh_token ? { refresh_token: token.refresh_token } : {}),
            ...(expiries.access_token_expires_at ? { access_token_expires_at: expiries.access_token_expires_at } : {}),
            ...(expiries.refresh_token_expires_at
              ? { refresh_token_expires_at: expiries.refresh_token_expires_at }
              : {}),
            attributes: { shop_cipher: shop.cipher, shop_id: shop.id },
          },
        }));
    },
  };
}

/**
 * The video-shop plug-in definition: offered only when VIDEO_SHOP_APP_KEY and VIDEO_SHOP_APP_SECRET (the gateway's
 * app; the secret never logged) are both set. VIDEO_SHOP_API_URL (the signed shop list) and VIDEO_SHOP_AUTH_URL
 * (authorization page and code exchange) default to the platform's hosts and are checked even when the app is unset.
 */
export const videoShopGrantPlugin: AuthorizationPageGrantPlugin = {
  provider: 'video-shop',
  connect: 'authorization_page',
  fromEnv(env) {
    const read = new GrantEnvReader(env);
    const apiBaseUrl = read.url('VIDEO_SHOP_API_URL', 'https://open-api.tiktokglobalshop.com');
    const authBaseUrl = read.url('VIDEO_SHOP_AUTH_URL', 'https://auth.tiktok-shops.com');
    const appKey = read.optionalText('VIDEO_SHOP_APP_KEY');
    const appSecret = read.optionalText('VIDEO_SHOP_APP_SECRET');
    read.done();
    if (appKey === undefined || appSecret === undefined) return undefined;
    return videoShopGrant({ apiBaseUrl, authBaseUrl, appKey, appSecret });
  },
};
