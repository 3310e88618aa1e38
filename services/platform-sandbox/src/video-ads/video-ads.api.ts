import type { AppQpsLimiter } from '../limits/app-qps.limiter';
import type { Grant, SandboxApp } from './auth/grant.store';
import type { Handler, VideoAdsServices } from './call-context';
import { apiError, MESSAGES, VideoAdsCode, type ApiResult } from './envelope';
import { advertiserInfo } from './handlers/advertiser-info.handler';
import { entityListHandler } from './handlers/entity-list.handler';
import { gmvReport, gmvStoreList } from './handlers/gmv-max.handler';
import { exchangeAuthCode, listAuthorizedAdvertisers, revokeToken } from './handlers/oauth.handler';
import { integratedReport } from './handlers/report.handler';
import { WRITE_HANDLERS } from './handlers/write.handler';
import { collectParams, ParamReader } from './params.reader';

export const OPEN_API_PREFIX = '/open_api/v1.3';

/**
 * token: Access-Token header. token+app: the header plus app_id and secret parameters
 * (/oauth2/advertiser/get/). app: app_id and secret only, no token (/oauth2/access_token/).
 */
type AuthMode = 'token' | 'token+app' | 'app';

interface Route {
  method: 'GET' | 'POST';
  auth: AuthMode;
  handler: Handler;
}

function buildRoutes(): Map<string, Route> {
  const routes = new Map<string, Route>([
    ['/oauth2/access_token/', { method: 'POST', auth: 'app', handler: exchangeAuthCode }],
    ['/oauth2/revoke_token/', { method: 'POST', auth: 'app', handler: revokeToken }],
    ['/oauth2/advertiser/get/', { method: 'GET', auth: 'token+app', handler: listAuthorizedAdvertisers }],
    ['/advertiser/info/', { method: 'GET', auth: 'token', handler: advertiserInfo }],
    ['/campaign/get/', { method: 'GET', auth: 'token', handler: entityListHandler('campaign') }],
    ['/adgroup/get/', { method: 'GET', auth: 'token', handler: entityListHandler('adgroup') }],
    ['/ad/get/', { method: 'GET', auth: 'token', handler: entityListHandler('ad') }],
    ['/report/integrated/get/', { method: 'GET', auth: 'token', handler: integratedReport }],
    ['/gmv_max/store/list/', { method: 'GET', auth: 'token', handler: gmvStoreList }],
    ['/gmv_max/report/get/', { method: 'GET', auth: 'token', handler: gmvReport }],
  ]);
  for (const [path, handler] of Object.entries(WRITE_HANDLERS)) {
    routes.set(path, { method: 'POST', auth: 'token', handler });
  }
  return routes;
}

/** The simulated TikTok Business API v1.3: routing, authentication, app QPS, then the path's handler. */
export class VideoAdsApi {
  private readonly routes = buildRoutes();

  constructor(
    private readonly services: VideoAdsServices,
    private readonly qps: AppQpsLimiter,
  ) {}

  /** `path` is the part after /open_api/v1.3, e.g. "/campaign/get/". */
  handle(method: string, path: string, query: string, accessToken: string | undefined, body: string): ApiResult {
    const route = this.routes.get(path);
    if (!route) {
      return apiError(VideoAdsCode.NOT_FOUND, `Not found: ${OPEN_API_PREFIX}${path} is not an API path.`, 404);
    }
    const effective = method === 'HEAD' ? 'GET' : method;
    if (effective !== route.method) {
      return apiError(
        VideoAdsCode.METHOD_NOT_ALLOWED,
        `Method ${method} is not allowed on ${OPEN_API_PREFIX}${path}; use ${route.method}.`,
        405,
      );
    }
    const collected = collectParams(query, body);

    let grant: Grant | undefined;
    let app: SandboxApp | undefined;
    if (route.auth !== 'app') {
      if (accessToken === undefined || accessToken === '') {
        return apiError(VideoAdsCode.TOKEN_MISSING, MESSAGES.tokenMissing);
      }
      grant = this.services.grants.findToken(accessToken);
      if (!grant) return apiError(VideoAdsCode.TOKEN_INVALID, MESSAGES.tokenInvalid);
      app = this.services.grants.findApp(grant.app_id);
    }
    if (!(collected instanceof Map)) return collected;
    const params = new ParamReader(collected);
    if (route.auth !== 'token') {
      const appId = params.string('app_id');
      const secret = params.string('secret');
      if (params.error) return params.error;
      const authenticated = this.services.grants.authenticateApp(appId, secret);
      if (!authenticated || (grant && grant.app_id !== authenticated.app_id)) {
        return apiError(VideoAdsCode.INVALID_APP, MESSAGES.invalidApp);
      }
      app = authenticated;
    }
    if (!app) return apiError(VideoAdsCode.TOKEN_INVALID, MESSAGES.tokenInvalid);
    if (!this.qps.tryAcquire(app.app_id)) return apiError(VideoAdsCode.APP_QPS_LIMIT, MESSAGES.qpsLimit);
    return route.handler({ params, app, grant, services: this.services });
  }
}
