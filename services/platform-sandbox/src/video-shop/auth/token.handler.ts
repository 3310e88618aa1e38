import { ok, ShopCode, shopError, type ShopResult } from '../envelope';
import { findSeller } from '../sandbox-sellers';
import type { ShopGrantStore, TokenPair } from './shop-grant.store';

const INVALID_GRANT_MESSAGES = {
  code: 'Invalid auth_code: it is unknown, expired or already used.',
  unknown: 'Invalid refresh_token: it is unknown.',
  used: 'Invalid refresh_token: it has already been used; refresh tokens are single use.',
  expired: 'Invalid refresh_token: it has expired; the seller must authorize the app again.',
  revoked: 'Invalid refresh_token: the seller has cancelled the authorization.',
} as const;

/** `data` of both token paths: expiries are absolute unix seconds, as the platform sends them. */
export function tokenData(pair: TokenPair): Record<string, unknown> {
  const seller = findSeller(pair.grant.open_id);
  return {
    access_token: pair.access_token,
    access_token_expire_in: Math.floor(pair.access_expires_at / 1000),
    refresh_token: pair.refresh_token,
    refresh_token_expire_in: Math.floor(pair.refresh_expires_at / 1000),
    open_id: pair.grant.open_id,
    seller_name: seller?.name ?? '',
    seller_base_region: seller?.base_region ?? '',
    user_type: 0,
    granted_scopes: [...pair.grant.scopes],
  };
}

function invalidParams(message: string): ShopResult {
  return shopError(ShopCode.AUTH_INVALID_PARAMS, `Invalid params: ${message}`, 400);
}

/** The app's credentials and grant_type, shared by both paths; undefined when all is well. */
function checkApp(
  store: ShopGrantStore,
  query: URLSearchParams,
  grantType: string,
  grantParam: string,
): ShopResult | undefined {
  for (const name of ['app_key', 'app_secret', grantParam, 'grant_type']) {
    if (!query.get(name)) return invalidParams(`${name} is required.`);
  }
  if (query.get('grant_type') !== grantType) return invalidParams(`grant_type must be ${grantType}.`);
  if (!store.authenticate(query.get('app_key') ?? '', query.get('app_secret') ?? '')) {
    return shopError(ShopCode.AUTH_INVALID_APP, 'Invalid credentials: app_key or app_secret is wrong.', 401);
  }
  return undefined;
}

/** GET /api/v2/token/get?app_key&app_secret&auth_code&grant_type=authorized_code (no signature on this host). */
export function getToken(store: ShopGrantStore, query: URLSearchParams): ShopResult {
  const problem = checkApp(store, query, 'authorized_code', 'auth_code');
  if (problem) return problem;
  const pair = store.exchangeAuthCode(query.get('auth_code') ?? '');
  if (!pair) return shopError(ShopCode.AUTH_INVALID_GRANT, INVALID_GRANT_MESSAGES.code, 400);
  return ok(tokenData(pair));
}

/** GET /api/v2/token/refresh?app_key&app_secret&refresh_token&grant_type=refresh_token: rotates the pair. */
export function refreshToken(store: ShopGrantStore, query: URLSearchParams): ShopResult {
  const problem = checkApp(store, query, 'refresh_token', 'refresh_token');
  if (problem) return problem;
  const outcome = store.refresh(query.get('refresh_token') ?? '');
  if (!outcome.ok) return shopError(ShopCode.AUTH_INVALID_GRANT, INVALID_GRANT_MESSAGES[outcome.reason], 400);
  return ok(tokenData(outcome.pair));
}
