import type { CallContext } from '../call-context';
import { apiError, MESSAGES, ok, VideoAdsCode, type ApiResult } from '../envelope';
import { findAdvertiser } from '../sandbox-accounts';

/** POST /oauth2/access_token/ {app_id, secret, auth_code}: the app is already authenticated by the router. */
export function exchangeAuthCode(ctx: CallContext): ApiResult {
  const authCode = ctx.params.string('auth_code');
  if (ctx.params.error) return ctx.params.error;
  const outcome = ctx.services.grants.exchangeAuthCode(ctx.app.app_id, authCode);
  if (!outcome.ok) return apiError(VideoAdsCode.INVALID_AUTH_CODE, MESSAGES.invalidAuthCode);
  const { grant } = outcome;
  return ok({ access_token: grant.access_token, advertiser_ids: grant.advertiser_ids, scope: grant.scope });
}

/** POST /oauth2/revoke_token/ {app_id, secret, access_token}: a write of the real API the gateway never calls. */
export function revokeToken(ctx: CallContext): ApiResult {
  const token = ctx.params.string('access_token');
  if (ctx.params.error) return ctx.params.error;
  const grant = ctx.services.grants.findToken(token);
  if (!grant || grant.app_id !== ctx.app.app_id) {
    return apiError(VideoAdsCode.TOKEN_INVALID, MESSAGES.tokenInvalid);
  }
  ctx.services.grants.revokeToken(token);
  return ok({});
}

/** GET /oauth2/advertiser/get/?app_id&secret: the advertisers of the token (no paging on this path). */
export function listAuthorizedAdvertisers(ctx: CallContext): ApiResult {
  const list = (ctx.grant?.advertiser_ids ?? []).map((advertiserId) => ({
    advertiser_id: advertiserId,
    advertiser_name: findAdvertiser(advertiserId)?.name ?? '',
  }));
  return ok({ list });
}
