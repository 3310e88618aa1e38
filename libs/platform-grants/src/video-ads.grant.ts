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

export class GrantExchangeError extends Error {
  constructor(
    readonly platformCode: number,
    message: string,
  ) {
    super(`the platform refused the grant (${platformCode}): ${message}`);
    this.name = 'GrantExchangeError';
  }
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
