import { GrantEnvReader, type AuthorizationPageGrantPlugin } from './grant-plugin';
import { GrantExchangeError, type PlatformGrant } from './platform-grant';

/**
 * The video-ads advertiser grant (docs/providers.md, "Advertiser OAuth"): the customer is sent to the
 * platform's authorization page, comes back with a single-use auth_code, and the service exchanges it for an
 * advertiser token that does not expire until the advertiser cancels the grant.
 */
export interface VideoAdsApp {
  /** Platform base, e.g. https://business-api.tiktok.com (the sandbox locally). */
  baseUrl: string;
  appId: string;
  secret: string;
}

export interface VideoAdsGrant {
  accessToken: string;
  advertiserIds: string[];
  scope: number[] | string[];
}

/** Where to send the customer to grant access. */
export function videoAdsAuthorizationUrl(app: VideoAdsApp, state: string, redirectUri: string): string {
  const url = new URL('/portal/auth', app.baseUrl);
  url.searchParams.set('app_id', app.appId);
  url.searchParams.set('state', state);
  url.searchParams.set('redirect_uri', redirectUri);
  return url.toString();
}

/** Exchanges an auth_code for the advertiser token. Errors never contain the secret or the token. */
export async function exchangeVideoAdsAuthCode(app: VideoAdsApp, authCode: string): Promise<VideoAdsGrant> {
  const response = await fetch(new URL('/open_api/v1.3/oauth2/access_token/', app.baseUrl), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ app_id: app.appId, secret: app.secret, auth_code: authCode }),
    signal: AbortSignal.timeout(15_000),
  });
  const envelope = (await response.json()) as {
    code: number;
    message: string;
    data?: { access_token?: string; advertiser_ids?: string[]; scope?: number[] | string[] };
  };
  if (envelope.code !== 0 || !envelope.data?.access_token) {
    throw new GrantExchangeError(envelope.code, envelope.message);
  }
  return {
    accessToken: envelope.data.access_token,
    advertiserIds: envelope.data.advertiser_ids ?? [],
    scope: envelope.data.scope ?? [],
  };
}

/**
 * The video-ads plug-in: one grant is one connection covering all the advertisers of the grant (as the
 * platform answers them); its token does not expire, so nothing but the access token is stored.
 */
export function videoAdsGrant(app: VideoAdsApp): PlatformGrant {
  return {
    provider: 'video-ads',
    regrantMatch: 'grant',
    authorizationUrl: (state, redirectUri) => videoAdsAuthorizationUrl(app, state, redirectUri),
    async exchange(query) {
      const authCode = query.auth_code ?? query.code;
      if (!authCode) throw new GrantExchangeError(0, 'the callback carries no auth_code');
      const grant = await exchangeVideoAdsAuthCode(app, authCode);
      return [{ externalAccountIds: grant.advertiserIds, credentials: { access_token: grant.accessToken } }];
    },
  };
}

/**
 * The video-ads plug-in definition: always offered, so VIDEO_ADS_BASE_URL (the platform, the sandbox locally),
 * VIDEO_ADS_APP_ID and VIDEO_ADS_APP_SECRET (the gateway's app; never logged) are required.
 */
export const videoAdsGrantPlugin: AuthorizationPageGrantPlugin = {
  provider: 'video-ads',
  connect: 'authorization_page',
  fromEnv(env) {
    const read = new GrantEnvReader(env);
    const app: VideoAdsApp = {
      baseUrl: read.url('VIDEO_ADS_BASE_URL'),
      appId: read.text('VIDEO_ADS_APP_ID'),
      secret: read.text('VIDEO_ADS_APP_SECRET'),
    };
    read.done();
    return videoAdsGrant(app);
  },
};
